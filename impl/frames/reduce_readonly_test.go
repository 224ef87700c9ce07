package frames

import (
	"testing"

	"github.com/frameproof/frameproof/impl/pi"
	"github.com/stretchr/testify/require"
)

// The Reducer only reads the frames it is given: the simulator parses each
// committed frame once and hands the same *pi.Frame to its prefix check's
// Reducer and to invariant 3, which serializes it again (sim/lanesim
// frameAt). Every frame of a text, thinking and tool-call stream still
// serializes to its own bytes after the whole list is reduced, and after
// Message.
func TestReducerLeavesItsFramesAlone(t *testing.T) {
	empty, err := pi.ParseJSON(`{}`)
	require.NoError(t, err)
	args, err := pi.ParseJSON(`{"a":1}`)
	require.NoError(t, err)
	live := msg(pi.ThinkingContent{}, pi.TextContent{Text: ""}, pi.ToolCall{ID: "c", Name: "n", Arguments: empty})
	delta := func(typ pi.EventType, i int, d string) *pi.Event {
		return &pi.Event{Type: typ, ContentIndex: pi.Index(i), Delta: d, Partial: live}
	}
	events := []*pi.Event{ev(pi.EventStart, 0, live), ev(pi.EventThinkingStart, 0, live), delta(pi.EventThinkingDelta, 0, "hm"),
		{Type: pi.EventThinkingEnd, ContentIndex: pi.Index(0), Content: "hm", Partial: live},
		ev(pi.EventTextStart, 1, live), delta(pi.EventTextDelta, 1, "hé "), delta(pi.EventTextDelta, 1, `"x"`),
		{Type: pi.EventTextEnd, ContentIndex: pi.Index(1), Content: `hé "x"`, Partial: live},
		ev(pi.EventToolCallStart, 2, live), delta(pi.EventToolCallDelta, 2, `{"a":`), delta(pi.EventToolCallDelta, 2, `1}`),
		{Type: pi.EventToolCallEnd, ContentIndex: pi.Index(2), ToolCall: &pi.ToolCall{ID: "c", Name: "n", Arguments: args}, Partial: live}}
	enc, red := NewEncoder(), NewReducer()
	var fs []*pi.Frame
	var want []string
	for _, e := range events {
		f, err := enc.Encode(e)
		require.NoError(t, err)
		if f != nil {
			fs, want = append(fs, f), append(want, marshal(t, f))
		}
	}
	for _, f := range fs {
		require.NoError(t, red.Apply(f))
	}
	_, err = red.Message()
	require.NoError(t, err)
	for i, f := range fs {
		require.Equal(t, want[i], marshal(t, f), "frame %d", i)
	}
}
