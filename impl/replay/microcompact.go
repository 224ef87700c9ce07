package replay

import (
	"fmt"

	"github.com/frameproof/frameproof/impl/pi"
)

// CompactableTools is the original's COMPACTABLE_TOOLS set.
var CompactableTools = []string{"read", "bash", "grep", "glob", "list_dir", "edit", "write"}

// MicrocompactOptions: keep the KeepRecent most recent compactable calls'
// results intact, clear the rest.
type MicrocompactOptions struct {
	KeepRecent int      // K; DefaultMicrocompact uses 5
	Tools      []string // compactable tool names
}

// DefaultMicrocompact is K=5 over CompactableTools.
func DefaultMicrocompact() MicrocompactOptions {
	return MicrocompactOptions{KeepRecent: 5, Tools: CompactableTools}
}

// Microcompact returns a copy of the record in which the output of every
// compactable call except the KeepRecent most recent (by call order) is
// replaced with ClearedResult. Every call is kept; result ids, names and
// isError are kept; results of other tools and results whose call is gone
// are never cleared. It is idempotent: a second run clears nothing. The
// input slice and its messages are not modified; cleared is the number of
// results rewritten.
func Microcompact(msgs []pi.Appender, o MicrocompactOptions) (out []pi.Appender, cleared int, err error) {
	if o.KeepRecent < 0 {
		return nil, 0, fmt.Errorf("replay: microcompact: KeepRecent must be >= 0, got %d", o.KeepRecent)
	}
	compactable := map[string]bool{}
	for _, t := range o.Tools {
		compactable[t] = true
	}
	var ids []string
	seen := map[string]bool{}
	for _, m := range msgs {
		if a, ok := m.(*pi.AssistantMessage); ok {
			for _, c := range a.Content {
				if tc, ok := c.(pi.ToolCall); ok && compactable[tc.Name] && !seen[tc.ID] {
					seen[tc.ID] = true
					ids = append(ids, tc.ID)
				}
			}
		}
	}
	out = append([]pi.Appender(nil), msgs...)
	if len(ids) <= o.KeepRecent {
		return out, 0, nil
	}
	clear := map[string]bool{}
	for _, id := range ids[:len(ids)-o.KeepRecent] {
		clear[id] = true
	}
	for i, m := range out {
		r, ok := m.(*pi.ToolResultMessage)
		if !ok || !clear[r.ToolCallID] || isCleared(r) {
			continue
		}
		c := *r
		c.Content = []pi.Content{pi.TextContent{Text: ClearedResult}}
		out[i] = &c
		cleared++
	}
	return out, cleared, nil
}

func isCleared(r *pi.ToolResultMessage) bool {
	if len(r.Content) != 1 {
		return false
	}
	t, ok := r.Content[0].(pi.TextContent)
	return ok && t.Text == ClearedResult
}
