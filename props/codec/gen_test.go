package codec

import (
	"strings"
	"testing"

	"github.com/frameproof/frameproof/impl/frames"
	"github.com/frameproof/frameproof/impl/pi"
	"github.com/stretchr/testify/require"
)

// TestGeneratorCoversTheHardCases fails if the generators stop producing
// the situations the properties are about.
func TestGeneratorCoversTheHardCases(t *testing.T) {
	seen := map[string]int{}
	for seed := 0; seed < 400; seed++ {
		s := GenStream().Example(seed)
		enc := frames.NewEncoder()
		for _, ev := range s.Events {
			f, err := enc.Encode(ev)
			require.NoError(t, err)
			switch ev.Type {
			case pi.EventTextDelta, pi.EventThinkingDelta:
				if f == nil && ev.Delta != "" {
					seen["covered delta dropped"]++
				}
				if f != nil && f.Delta != ev.Delta {
					seen["delta trimmed"]++
				}
				if strings.Contains(ev.Delta, "\xed") {
					seen["lone surrogate in delta"]++
				}
				if ev.Delta == "" {
					seen["empty delta"]++
				}
			case pi.EventThinkingStart:
				if th := ev.Partial.Content[ev.ContentIndex.N].(pi.ThinkingContent); th.Redacted != nil && *th.Redacted {
					seen["redacted at start"]++
				}
			case pi.EventToolCallStart:
				if ev.Partial.Content[ev.ContentIndex.N].(pi.ToolCall).Arguments.String() != "{}" {
					seen["tool args at start"]++
				}
			case pi.EventError:
				seen["error ending"]++
			case pi.EventDone:
				seen["done ending"]++
			}
			if f != nil && f.Type == pi.FrameToolCallCheckpoint {
				seen["checkpoint"]++
			}
		}
	}
	for _, k := range []string{"covered delta dropped", "delta trimmed", "lone surrogate in delta", "empty delta",
		"redacted at start", "tool args at start", "error ending", "done ending", "checkpoint"} {
		require.Positive(t, seen[k], "generator never produced: %s", k)
	}
	t.Logf("%v", seen)
	kinds := map[string]bool{}
	for seed := 0; seed < 400; seed++ {
		s := GenInvalidStream().Example(seed)
		kinds[strings.Fields(strings.NewReplacer("0", "N", "1", "N", "2", "N").Replace(s.WantErr))[2]] = true
	}
	require.GreaterOrEqual(t, len(kinds), 6, "invalid stream kinds: %v", kinds)
}
