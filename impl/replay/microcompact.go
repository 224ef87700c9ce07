package replay

import (
	"fmt"
	"slices"

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
	first, cut := firstCalls(compactableCalls(msgs, o.Tools), o.KeepRecent)
	out = append([]pi.Appender(nil), msgs...)
	if cut < 0 {
		return out, 0, nil
	}
	var todo []int // the indexes of the results to clear
	for i, m := range out {
		if r, ok := m.(*pi.ToolResultMessage); ok {
			if at, call := first[r.ToolCallID]; call && at < cut && !isCleared(r) {
				todo = append(todo, i)
			}
		}
	}
	// One allocation for all the copies and one for all their contents
	// (each its own element, capped, so no two results share one).
	copies := make([]pi.ToolResultMessage, len(todo))
	contents := make([]pi.Content, len(todo))
	for j, i := range todo {
		c := &copies[j]
		*c = *out[i].(*pi.ToolResultMessage)
		contents[j] = clearedText
		c.Content = contents[j : j+1 : j+1]
		out[i] = c
	}
	return out, len(todo), nil
}

// clearedText is the content of a cleared result, boxed once (an
// interface's value is never written through, so it can be shared).
var clearedText pi.Content = pi.TextContent{Text: ClearedResult}

// compactableCalls returns the ids of the compactable calls in call order.
func compactableCalls(msgs []pi.Appender, tools []string) []string {
	isTool := toolSet(tools)
	var calls []string
	for _, m := range msgs {
		a, ok := m.(*pi.AssistantMessage)
		if !ok {
			continue
		}
		for _, c := range a.Content {
			if tc, ok := c.(pi.ToolCall); ok && isTool(tc.Name) {
				calls = append(calls, tc.ID)
			}
		}
	}
	return calls
}

// firstCalls maps each id of calls to the index of its first call, and
// returns cut, the first call of the keep-th most recent id by first call:
// the ids first called before cut are the ones cleared (cut is -1 when
// there are at most keep ids). The map is made at its final size, since
// growing it rehashed every id already in it, the bulk of the cost on a
// long record; and it is filled from the last call back, so one write per
// call leaves each id at its first call.
func firstCalls(calls []string, keep int) (first map[string]int, cut int) {
	first = make(map[string]int, len(calls))
	for i := len(calls) - 1; i >= 0; i-- {
		first[calls[i]] = i
	}
	if len(first) <= keep {
		return first, -1
	}
	cut = len(calls) // keep 0: every id is cleared
	for i, found := len(calls)-1, 0; found < keep; i-- {
		if first[calls[i]] == i { // an id's first call, the latest not yet found
			found++
			cut = i
		}
	}
	return first, cut
}

// toolSet is membership in tools: a scan of a short list (the default has
// seven names) costs less than hashing the name, a map beyond that.
func toolSet(tools []string) func(string) bool {
	if len(tools) <= 8 {
		return func(name string) bool { return slices.Contains(tools, name) }
	}
	set := make(map[string]bool, len(tools))
	for _, t := range tools {
		set[t] = true
	}
	return func(name string) bool { return set[name] }
}

func isCleared(r *pi.ToolResultMessage) bool {
	if len(r.Content) != 1 {
		return false
	}
	t, ok := r.Content[0].(pi.TextContent)
	return ok && t.Text == ClearedResult
}
