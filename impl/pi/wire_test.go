package pi

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWireTable(t *testing.T) {
	seen := map[string]bool{}
	for _, w := range Wires() {
		names := map[string]bool{w.API: true, w.Short: true} // openai-responses is both
		for _, a := range w.Aliases {
			assert.False(t, names[a], "alias %q repeats a name", a)
			names[a] = true
		}
		for name := range names {
			assert.False(t, seen[name], "name %q is used twice", name)
			seen[name] = true
			got, err := WireByName(name)
			require.NoError(t, err)
			assert.Equal(t, w.API, got.API, name)
		}
	}
	_, err := WireByName("gemini-2")
	assert.EqualError(t, err, `pi: unknown wire "gemini-2" (known: anthropic-messages, openai-completions, openai-responses, google-generative-ai)`)
}
