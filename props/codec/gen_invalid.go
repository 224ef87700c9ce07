package codec

import (
	"fmt"
	"sort"

	"github.com/frameproof/frameproof/impl/pi"
	"pgregory.net/rapid"
)

// openKinds scans a valid prefix and reports, per content index, the kind of
// each block that is open (started and not ended) and of each ended block.
func openKinds(events []*pi.Event) (open, ended map[int]string) {
	open, ended = map[int]string{}, map[int]string{}
	kinds := map[pi.EventType]string{pi.EventTextStart: "text", pi.EventThinkingStart: "thinking", pi.EventToolCallStart: "toolCall"}
	for _, e := range events {
		switch e.Type {
		case pi.EventTextStart, pi.EventThinkingStart, pi.EventToolCallStart:
			open[e.ContentIndex.N] = kinds[e.Type]
		case pi.EventTextEnd, pi.EventThinkingEnd, pi.EventToolCallEnd:
			ended[e.ContentIndex.N] = open[e.ContentIndex.N]
			delete(open, e.ContentIndex.N)
		}
	}
	return open, ended
}

var deltaOf = map[string]pi.EventType{"text": pi.EventTextDelta, "thinking": pi.EventThinkingDelta, "toolCall": pi.EventToolCallDelta}
var startOf = map[string]pi.EventType{"text": pi.EventTextStart, "thinking": pi.EventThinkingStart, "toolCall": pi.EventToolCallStart}

// genInvalid takes a valid stream, keeps a prefix that contains its start
// event, and appends one event that pi's encoder must reject.
func genInvalid(t *rapid.T) Stream {
	valid := genValidEvents(t, 6)
	// Drop a trailing terminal event unless we want one.
	body := valid
	if last := body[len(body)-1]; last.Type == pi.EventDone || last.Type == pi.EventError {
		body = body[:len(body)-1]
	}
	cut := rapid.IntRange(1, len(body)).Draw(t, "cut")
	prefix := append([]*pi.Event(nil), body[:cut]...)
	partial := prefix[len(prefix)-1].Partial
	open, ended := openKinds(prefix)
	kinds := []string{"text", "thinking", "toolCall"}
	bad := func(e pi.Event, msg string) Stream {
		e2 := e
		if e2.Partial == nil && e2.Type != pi.EventDone && e2.Type != pi.EventError {
			e2.Partial = partial
		}
		return Stream{Events: append(prefix, &e2), WantErr: msg, ErrAt: len(prefix)}
	}
	switch rapid.IntRange(0, 9).Draw(t, "errKind") {
	case 0: // after a terminal event
		term := &pi.Event{Type: pi.EventDone, Reason: pi.StopStop, Message: partial}
		if rapid.Bool().Draw(t, "errorTerm") {
			term = &pi.Event{Type: pi.EventError, Reason: pi.StopError, Message: partial}
		}
		prefix = append(prefix, term)
		typ := rapid.SampledFrom([]pi.EventType{pi.EventStart, pi.EventTextDelta, pi.EventDone, pi.EventError}).Draw(t, "late")
		return bad(pi.Event{Type: typ, Reason: pi.StopStop, Message: partial}, fmt.Sprintf("Assistant message event %s follows a terminal event", typ))
	case 1: // a second start
		return bad(pi.Event{Type: pi.EventStart}, "Assistant message stream contains more than one start event")
	case 2: // before start
		typ := rapid.SampledFrom([]pi.EventType{pi.EventTextDelta, pi.EventToolCallStart, pi.EventDone, pi.EventThinkingEnd}).Draw(t, "early")
		e := pi.Event{Type: typ, ContentIndex: pi.Index(0), Partial: partial, Message: partial, Reason: pi.StopStop}
		return Stream{Events: []*pi.Event{&e}, WantErr: fmt.Sprintf("Assistant message %s event appears before start", typ), ErrAt: 0}
	case 3: // invalid contentIndex
		idx := rapid.SampledFrom([]pi.ContentIndex{pi.Index(-1), {Invalid: "1.5"}, {Invalid: "9007199254740992"}, {Invalid: "NaN"}}).Draw(t, "idx")
		typ := rapid.SampledFrom([]pi.EventType{pi.EventTextStart, pi.EventTextDelta, pi.EventToolCallEnd, pi.EventThinkingDelta}).Draw(t, "typ")
		tc := pi.ToolCall{ID: "x", Name: "y", Arguments: pi.EmptyObject()}
		return bad(pi.Event{Type: typ, ContentIndex: idx, ToolCall: &tc}, "Invalid assistant message frame contentIndex: "+idx.JS())
	case 4: // no content block at the index
		n := len(partial.Content) + rapid.IntRange(0, 3).Draw(t, "beyond")
		typ := rapid.SampledFrom([]pi.EventType{pi.EventTextStart, pi.EventThinkingEnd, pi.EventToolCallStart}).Draw(t, "typ")
		return bad(pi.Event{Type: typ, ContentIndex: pi.Index(n)}, fmt.Sprintf("%s event has no content block at index %d", typ, n))
	case 5: // *_start pointing at a block of another kind
		if len(partial.Content) == 0 {
			return bad(pi.Event{Type: pi.EventStart}, "Assistant message stream contains more than one start event")
		}
		i := rapid.IntRange(0, len(partial.Content)-1).Draw(t, "i")
		have := partial.Content[i].ContentType()
		var other []string
		for _, k := range kinds {
			if k != have {
				other = append(other, k)
			}
		}
		typ := startOf[rapid.SampledFrom(other).Draw(t, "other")]
		return bad(pi.Event{Type: typ, ContentIndex: pi.Index(i)}, fmt.Sprintf("%s event points to %s block at index %d", typ, have, i))
	case 6: // an open block starts again
		for _, i := range sortedKeys(open) {
			k := open[i]
			return bad(pi.Event{Type: startOf[k], ContentIndex: pi.Index(i)}, fmt.Sprintf("Assistant message block %d starts more than once", i))
		}
		return bad(pi.Event{Type: pi.EventStart}, "Assistant message stream contains more than one start event")
	case 7: // a delta for a block that is not open
		k := rapid.SampledFrom(kinds).Draw(t, "k")
		i := len(partial.Content) + rapid.IntRange(0, 2).Draw(t, "i")
		if keys := sortedKeys(ended); len(keys) > 0 && rapid.Bool().Draw(t, "useEnded") {
			i = keys[0]
		}
		return bad(pi.Event{Type: deltaOf[k], ContentIndex: pi.Index(i), Delta: "x"}, fmt.Sprintf("Assistant message %s block %d has not started", k, i))
	case 8: // a delta of the wrong kind for an open block
		for _, i := range sortedKeys(open) {
			have := open[i]
			for _, k := range kinds {
				if k != have {
					return bad(pi.Event{Type: deltaOf[k], ContentIndex: pi.Index(i), Delta: "x"}, fmt.Sprintf("Assistant message block %d is %s, not %s", i, have, k))
				}
			}
		}
		return bad(pi.Event{Type: pi.EventStart}, "Assistant message stream contains more than one start event")
	default: // tool call whose arguments are undefined
		p := partial.Clone()
		i := len(p.Content)
		p.Content = append(p.Content, pi.ToolCall{ID: "c", Name: "n"})
		return bad(pi.Event{Type: pi.EventToolCallStart, ContentIndex: pi.Index(i), Partial: p}, "Tool-call arguments are not JSON-serializable")
	}
}

// sortedKeys keeps generation deterministic (map order is random).
func sortedKeys(m map[int]string) []int {
	keys := make([]int, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	return keys
}
