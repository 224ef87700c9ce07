package jsonl

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// session/jsonl/storage.ts JsonlStorage.open → replayCommitted →
// in-memory-storage-state.ts applyValidated → utils/usage.ts addUsage: a
// usage row is folded into the totals, reading usage.input and then
// usage.cost.input, so a row without usage or usage.cost (undefined or
// null) fails the open with the TypeError; other shapes add up to NaN.
func TestUsageRowsOpenAsPiFoldsThem(t *testing.T) {
	refused := map[string]struct{ usage, cause string }{
		"usage missing":      {``, "Cannot read properties of undefined (reading 'input')"},
		"usage null":         {`,"usage":null`, "Cannot read properties of null (reading 'input')"},
		"usage a number":     {`,"usage":5`, "Cannot read properties of undefined (reading 'input')"},
		"usage an array":     {`,"usage":[1]`, "Cannot read properties of undefined (reading 'input')"},
		"cost missing":       {`,"usage":{"input":1,"output":1}`, "Cannot read properties of undefined (reading 'input')"},
		"cost null":          {`,"usage":{"input":1,"cost":null}`, "Cannot read properties of null (reading 'input')"},
		"last duplicate nil": {`,"usage":{"cost":{},"cost":null}`, "Cannot read properties of null (reading 'input')"},
	}
	for name, tc := range refused {
		t.Run(name, func(t *testing.T) {
			content := hdr + rec1 + `{"kind":"usage","id":"u1"` + tc.usage + `,"adjustment":false,"seq":2}` + "\n"
			_, _, err := openContent(t, content, Options{})
			requireLineError(t, err, "3", tc.cause)
		})
	}
	opened := map[string]string{
		"pi's usage":       `{"input":1,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":1,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}}`,
		"cost empty":       `{"cost":{}}`,
		"cost a number":    `{"cost":5}`,
		"last duplicate":   `{"cost":null,"cost":{}}`,
		"members any type": `{"input":"x","cost":{"input":[]}}`,
	}
	for name, usage := range opened {
		t.Run(name, func(t *testing.T) {
			s := mustOpen(t, hdr+`{"kind":"usage","id":"u1","usage":`+usage+`,"adjustment":false,"seq":1}`+"\n")
			require.Len(t, s.state.Usage(), 1)
		})
	}
}

// in-memory-storage-state.ts validateCommitted before applyValidated: the
// fold happens at apply, after the transaction validated, so a line whose
// usage row lacks cost but repeats an id reports pi's duplicate first.
func TestUsageFoldFollowsValidation(t *testing.T) {
	line := `[{"kind":"usage","id":"u1","usage":{},"adjustment":false,"seq":1},{"kind":"usage","id":"u1","usage":{"cost":{}},"adjustment":false,"seq":2}]`
	_, _, err := openContent(t, hdr+line+"\n", Options{})
	requireLineError(t, err, "2", "Duplicate entry or usage id: u1")
}
