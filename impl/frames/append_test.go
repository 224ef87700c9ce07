package frames

import (
	"testing"

	"github.com/frameproof/frameproof/impl/pi"
	"github.com/stretchr/testify/require"
)

// twinRun feeds events to two encoders, one through Encode (+ AppendJSON)
// and one through AppendFrame, and requires the same bytes ("null" for no
// frame), the same framed flags and the same errors after every event. It
// returns the per-event bytes and the first error.
func twinRun(t *testing.T, events []*pi.Event) ([]string, error) {
	t.Helper()
	old, app := NewEncoder(), NewEncoder()
	var out []string
	buf := []byte("log:")
	for k, x := range events {
		f, oldErr := old.Encode(x)
		next, framed, appErr := app.AppendFrame(buf, x)
		require.Equal(t, errText(oldErr), errText(appErr), "event %d: error", k)
		require.Equal(t, f != nil, framed, "event %d: framed", k)
		require.Equal(t, "log:", string(buf[:4]), "event %d: dst prefix overwritten", k)
		if !framed {
			require.Equal(t, len(buf), len(next), "event %d: no frame but dst grew", k)
			if oldErr != nil {
				return out, oldErr
			}
			out = append(out, "null")
			continue
		}
		want := string(f.AppendJSON(nil))
		require.Equal(t, want, string(next[len(buf):]), "event %d: frame bytes", k)
		out = append(out, want)
		buf = next[:4] // reuse the buffer, as a log writer does
	}
	return out, nil
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// pi-ai utils/assistant-message-frame.js AssistantMessageFrameEncoder.encode:
// both APIs throw pi's exact error at the same event and write nothing.
func TestAppendFrameErrorsMatchEncode(t *testing.T) {
	for _, c := range encoderErrorCases() {
		_, err := twinRun(t, c.events)
		require.EqualError(t, err, c.want)
	}
}

// Run-ahead text (a covered delta, then an astral character split by the
// start snapshot, which holds its high surrogate alone), thinking, a tool call that catches up with its snapshot, and
// the terminal event: byte-identical through both APIs.
func TestAppendFrameMatchesEncode(t *testing.T) {
	args, _ := pi.ParseJSON(`{"path":"a.txt"}`)
	live := msg(pi.TextContent{Text: "Hel\xed\xa0\xbd"}, pi.ThinkingContent{Thinking: "hm"}, pi.ToolCall{ID: "c", Name: "read", Arguments: args})
	delta := func(t pi.EventType, i int, d string) *pi.Event {
		return &pi.Event{Type: t, ContentIndex: pi.Index(i), Delta: d, Partial: live}
	}
	events := []*pi.Event{
		ev(pi.EventStart, 0, msg()),
		ev(pi.EventTextStart, 0, live),
		delta(pi.EventTextDelta, 0, "He"),
		delta(pi.EventTextDelta, 0, "l😀lo"),
		ev(pi.EventThinkingStart, 1, live),
		delta(pi.EventThinkingDelta, 1, "hmm\n\"q\""),
		ev(pi.EventToolCallStart, 2, live),
		delta(pi.EventToolCallDelta, 2, `{"pa`),
		delta(pi.EventToolCallDelta, 2, `th":"a.txt"`),
		delta(pi.EventToolCallDelta, 2, `}`),
		delta(pi.EventTextDelta, 0, "!"),
		{Type: pi.EventTextEnd, ContentIndex: pi.Index(0), Content: "Hel😀lo!", Partial: live},
		{Type: pi.EventDone, Reason: pi.StopStop, Message: live},
	}
	out, err := twinRun(t, events)
	require.NoError(t, err)
	require.Equal(t, []string{
		`null`,
		`{"type":"text_delta","contentIndex":0,"delta":"\ude00lo"}`,
		`{"type":"thinking_start","contentIndex":1,"content":{"type":"thinking","thinking":"hm"}}`,
		`{"type":"thinking_delta","contentIndex":1,"delta":"m\n\"q\""}`,
		`{"type":"toolcall_start","contentIndex":2,"toolCall":{"type":"toolCall","id":"c","name":"read","arguments":{"path":"a.txt"}}}`,
		`null`,
		`{"type":"toolcall_checkpoint","contentIndex":2,"json":"{\"path\":\"a.txt\""}`,
		`{"type":"toolcall_delta","contentIndex":2,"delta":"}"}`,
		`{"type":"text_delta","contentIndex":0,"delta":"!"}`,
		`{"type":"text_end","contentIndex":0,"content":"Hel😀lo!"}`,
		`null`,
	}, out[2:])
}

// pi-ai assistant-message-frame.ts encodeTextDelta: an empty delta gives no
// frame (covered 0 >= delta.length 0), also once the deltas are past the
// start snapshot, where the encoder stops counting.
func TestEmptyDeltaAfterSnapshotGivesNoFrame(t *testing.T) {
	live := msg(pi.TextContent{Text: "a"})
	d := func(s string) *pi.Event {
		return &pi.Event{Type: pi.EventTextDelta, ContentIndex: pi.Index(0), Delta: s, Partial: live}
	}
	out, err := twinRun(t, []*pi.Event{ev(pi.EventStart, 0, msg()), ev(pi.EventTextStart, 0, live), d("ab"), d(""), d("c"), d("")})
	require.NoError(t, err)
	require.Equal(t, []string{`{"type":"text_delta","contentIndex":0,"delta":"b"}`, "null",
		`{"type":"text_delta","contentIndex":0,"delta":"c"}`, "null"}, out[2:])
}

// The encoder remembers the block the last delta went to; ending that block
// must forget it, so a later delta to the index is pi's "has not started"
// (pi-ai utils/assistant-message-frame.js AssistantMessageFrameEncoder.block).
func TestDeltaAfterEndOfCachedBlockFails(t *testing.T) {
	live := msg(pi.TextContent{Text: ""}, pi.TextContent{Text: ""})
	d := func(i int) *pi.Event {
		return &pi.Event{Type: pi.EventTextDelta, ContentIndex: pi.Index(i), Delta: "x", Partial: live}
	}
	end := &pi.Event{Type: pi.EventTextEnd, ContentIndex: pi.Index(0), Content: "x", Partial: live}
	_, err := twinRun(t, []*pi.Event{ev(pi.EventStart, 0, msg()), ev(pi.EventTextStart, 0, live),
		ev(pi.EventTextStart, 1, live), d(0), d(1), d(0), end, d(1), d(0)})
	require.EqualError(t, err, "Assistant message text block 0 has not started")
}

// A delta to a block that has ended is refused even when a later block
// took the ended block's inline slot: endBlock drops the encoder's cached
// block with it (pi-ai utils/assistant-message-frame.js
// AssistantMessageFrameEncoder.endBlock deletes the block's state from its
// blocks Map, so the delta's AssistantMessageFrameEncoder.block finds none).
func TestAppendFrameDeltaAfterEndWithSlotReused(t *testing.T) {
	live := msg(pi.TextContent{Text: ""}, pi.TextContent{Text: ""})
	d0 := &pi.Event{Type: pi.EventTextDelta, ContentIndex: pi.Index(0), Delta: "x", Partial: live}
	end0 := &pi.Event{Type: pi.EventTextEnd, ContentIndex: pi.Index(0), Content: "x", Partial: live}
	_, err := twinRun(t, []*pi.Event{ev(pi.EventStart, 0, msg()), ev(pi.EventTextStart, 0, live), d0, end0,
		ev(pi.EventTextStart, 1, live), d0})
	require.EqualError(t, err, "Assistant message text block 0 has not started")
}

// A delta event in steady state allocates nothing when dst has room: the
// per-event cost of a frame log does not include the garbage collector.
func TestAppendFrameDeltaAllocatesNothing(t *testing.T) {
	empty, err := pi.ParseJSON(`{}`)
	require.NoError(t, err)
	live := msg(pi.TextContent{Text: ""}, pi.ThinkingContent{}, pi.ToolCall{ID: "c", Name: "n", Arguments: empty})
	e := NewEncoder()
	buf := make([]byte, 0, 256)
	for _, x := range []*pi.Event{ev(pi.EventStart, 0, msg()), ev(pi.EventTextStart, 0, live), ev(pi.EventThinkingStart, 1, live), ev(pi.EventToolCallStart, 2, live)} {
		_, _, err := e.AppendFrame(buf, x)
		require.NoError(t, err)
	}
	deltas := []*pi.Event{
		{Type: pi.EventTextDelta, ContentIndex: pi.Index(0), Delta: "héllo \"wörld\"\n", Partial: live},
		{Type: pi.EventThinkingDelta, ContentIndex: pi.Index(1), Delta: "hm 😀", Partial: live},
		{Type: pi.EventToolCallDelta, ContentIndex: pi.Index(2), Delta: `{"a":1`, Partial: live},
	}
	for _, x := range deltas {
		allocs := testing.AllocsPerRun(100, func() {
			out, framed, err := e.AppendFrame(buf[:0], x)
			if err != nil || !framed || len(out) == 0 {
				t.Fatalf("%s: framed %v, err %v", x.Type, framed, err)
			}
		})
		require.Zero(t, allocs, "%s", x.Type)
	}
}

// A whole short stream (a start, a thinking and a text block open at once,
// their deltas and ends, done) allocates at most the encoder through
// AppendFrame: starting a block and writing the start frame, the fixed cost
// of a stream, allocate nothing when dst has room.
func TestAppendFrameShortStreamAllocatesOnlyTheEncoder(t *testing.T) {
	live := msg(pi.ThinkingContent{}, pi.TextContent{Text: ""})
	delta := func(typ pi.EventType, i int) *pi.Event {
		return &pi.Event{Type: typ, ContentIndex: pi.Index(i), Delta: "hé \"x\"", Partial: live}
	}
	stream := []*pi.Event{ev(pi.EventStart, 0, msg()), ev(pi.EventThinkingStart, 0, live), ev(pi.EventTextStart, 1, live),
		delta(pi.EventThinkingDelta, 0), delta(pi.EventTextDelta, 1), delta(pi.EventTextDelta, 1),
		{Type: pi.EventThinkingEnd, ContentIndex: pi.Index(0), Content: "hé", Partial: live},
		{Type: pi.EventTextEnd, ContentIndex: pi.Index(1), Content: "hé", Partial: live},
		{Type: pi.EventDone, Reason: pi.StopStop, Message: live}}
	buf := make([]byte, 0, 1024)
	allocs := testing.AllocsPerRun(100, func() {
		e := NewEncoder()
		for _, x := range stream {
			if _, _, err := e.AppendFrame(buf[:0], x); err != nil {
				t.Fatalf("%s: %v", x.Type, err)
			}
		}
	})
	require.LessOrEqual(t, allocs, 1.0)
}

// AppendFrame's shortcut (a block's deltas passing through whole) must not
// swallow what the full path rejects: a delta of another kind to the same
// index, a delta after the terminal event, an invalid index.
func TestAppendFrameShortcutKeepsErrors(t *testing.T) {
	live := msg(pi.TextContent{Text: ""})
	start, textStart := ev(pi.EventStart, 0, msg()), ev(pi.EventTextStart, 0, live)
	d := func(typ pi.EventType, i pi.ContentIndex) *pi.Event {
		return &pi.Event{Type: typ, ContentIndex: i, Delta: "x", Partial: live}
	}
	warm := []*pi.Event{start, textStart, d(pi.EventTextDelta, pi.Index(0)), d(pi.EventTextDelta, pi.Index(0))}
	cases := []struct {
		last *pi.Event
		want string
	}{
		{d(pi.EventThinkingDelta, pi.Index(0)), "Assistant message block 0 is text, not thinking"},
		{d(pi.EventToolCallDelta, pi.Index(0)), "Assistant message block 0 is text, not toolCall"},
		{d(pi.EventTextDelta, pi.ContentIndex{Invalid: "0.5"}), "Invalid assistant message frame contentIndex: 0.5"},
		{d(pi.EventTextDelta, pi.Index(1)), "Assistant message text block 1 has not started"},
	}
	for _, c := range cases {
		_, err := twinRun(t, append(append([]*pi.Event{}, warm...), c.last))
		require.EqualError(t, err, c.want)
	}
	done := &pi.Event{Type: pi.EventDone, Reason: pi.StopStop, Message: live}
	_, err := twinRun(t, append(append([]*pi.Event{}, warm...), done, d(pi.EventTextDelta, pi.Index(0))))
	require.EqualError(t, err, "Assistant message event text_delta follows a terminal event")
}
