package frames

import (
	"testing"

	"github.com/frameproof/frameproof/impl/pi"
	"github.com/stretchr/testify/require"
)

func msg(blocks ...pi.Content) *pi.AssistantMessage {
	return &pi.AssistantMessage{Content: blocks, API: "a", Provider: "p", Model: "m", StopReason: pi.StopPending, Timestamp: 1,
		ErrorMessage: pi.Str("dropped by the start frame")}
}

func ev(t pi.EventType, i int, partial *pi.AssistantMessage) *pi.Event {
	return &pi.Event{Type: t, ContentIndex: pi.Index(i), Partial: partial}
}

func marshal(t *testing.T, f *pi.Frame) string {
	t.Helper()
	if f == nil {
		return "null"
	}
	b, err := pi.Marshal(f)
	require.NoError(t, err)
	return string(b)
}

func TestEncodeRunAheadTextAndReduce(t *testing.T) {
	e := NewEncoder()
	live := msg(pi.TextContent{Text: "Hel😀"})
	var got []string
	var frames []pi.Frame
	for _, x := range []*pi.Event{
		ev(pi.EventStart, 0, msg()),
		ev(pi.EventTextStart, 0, live),
		{Type: pi.EventTextDelta, ContentIndex: pi.Index(0), Delta: "He", Partial: live},
		{Type: pi.EventTextDelta, ContentIndex: pi.Index(0), Delta: "l\xed\xa0\xbd", Partial: live},
		{Type: pi.EventTextDelta, ContentIndex: pi.Index(0), Delta: "\xed\xb8\x80lo", Partial: live},
	} {
		f, err := e.Encode(x)
		require.NoError(t, err)
		got = append(got, marshal(t, f))
		if f != nil {
			frames = append(frames, *f)
		}
	}
	require.Equal(t, []string{
		`{"type":"start","partial":{"role":"assistant","content":[],"api":"a","provider":"p","model":"m","usage":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"pending","timestamp":1}}`,
		`{"type":"text_start","contentIndex":0,"content":{"type":"text","text":"Hel😀"}}`,
		`null`, `null`, `{"type":"text_delta","contentIndex":0,"delta":"lo"}`,
	}, got)
	m, err := Reduce(frames)
	require.NoError(t, err)
	require.Equal(t, pi.TextContent{Text: "Hel😀lo"}, m.Content[0])
	require.Equal(t, 1, e.OpenBlocks())
}

func TestToolCallCatchUpCheckpoint(t *testing.T) {
	e := NewEncoder()
	args, _ := pi.ParseJSON(`{"path":"a.txt"}`)
	live := msg(pi.ToolCall{ID: "c", Name: "read", Arguments: args})
	_, err := e.Encode(ev(pi.EventStart, 0, msg()))
	require.NoError(t, err)
	f, err := e.Encode(ev(pi.EventToolCallStart, 0, live))
	require.NoError(t, err)
	require.Equal(t, `{"type":"toolcall_start","contentIndex":0,"toolCall":{"type":"toolCall","id":"c","name":"read","arguments":{"path":"a.txt"}}}`, marshal(t, f))
	frames := []pi.Frame{{Type: pi.FrameStart, Partial: msg()}, *f}
	var out []string
	for _, d := range []string{`{"pa`, `th":"a.t`, `xt"`, `}`, ``, `x`} {
		f, err := e.Encode(&pi.Event{Type: pi.EventToolCallDelta, ContentIndex: pi.Index(0), Delta: d, Partial: live})
		require.NoError(t, err)
		out = append(out, marshal(t, f))
		if f != nil {
			frames = append(frames, *f)
		}
	}
	require.Equal(t, []string{"null", "null", `{"type":"toolcall_checkpoint","contentIndex":0,"json":"{\"path\":\"a.txt\""}`,
		`{"type":"toolcall_delta","contentIndex":0,"delta":"}"}`, "null", `{"type":"toolcall_delta","contentIndex":0,"delta":"x"}`}, out)
	require.Zero(t, e.RetainedBytes())
	m, err := Reduce(frames)
	require.NoError(t, err)
	require.Equal(t, `{"path":"a.txt"}`, m.Content[0].(pi.ToolCall).Arguments.String())
}

// encoderErrorCase is a stream whose last event makes pi's encoder throw want.
type encoderErrorCase struct {
	events []*pi.Event
	want   string
}

func encoderErrorCases() []encoderErrorCase {
	text := msg(pi.TextContent{Text: ""})
	start := ev(pi.EventStart, 0, msg())
	return []encoderErrorCase{
		{[]*pi.Event{start, {Type: pi.EventDone}, ev(pi.EventTextStart, 0, text)}, "Assistant message event text_start follows a terminal event"},
		{[]*pi.Event{{Type: pi.EventError}, start}, "Assistant message event start follows a terminal event"},
		{[]*pi.Event{start, start}, "Assistant message stream contains more than one start event"},
		{[]*pi.Event{{Type: pi.EventDone}}, "Assistant message done event appears before start"},
		{[]*pi.Event{ev(pi.EventTextDelta, 0, text)}, "Assistant message text_delta event appears before start"},
		{[]*pi.Event{start, ev(pi.EventTextStart, -1, text)}, "Invalid assistant message frame contentIndex: -1"},
		{[]*pi.Event{start, {Type: pi.EventTextDelta, ContentIndex: pi.ContentIndex{Invalid: "1.5"}}}, "Invalid assistant message frame contentIndex: 1.5"},
		{[]*pi.Event{start, ev(pi.EventTextStart, 1, text)}, "text_start event has no content block at index 1"},
		{[]*pi.Event{start, ev(pi.EventThinkingStart, 0, text)}, "thinking_start event points to text block at index 0"},
		{[]*pi.Event{start, ev(pi.EventTextStart, 0, text), ev(pi.EventTextStart, 0, text)}, "Assistant message block 0 starts more than once"},
		{[]*pi.Event{start, ev(pi.EventTextDelta, 0, text)}, "Assistant message text block 0 has not started"},
		{[]*pi.Event{start, ev(pi.EventTextStart, 0, text), ev(pi.EventThinkingDelta, 0, text)}, "Assistant message block 0 is text, not thinking"},
		{[]*pi.Event{start, ev(pi.EventTextEnd, 0, text)}, "Assistant message text block 0 has not started"},
		{[]*pi.Event{start, ev(pi.EventToolCallStart, 0, msg(pi.ToolCall{ID: "x"}))}, "Tool-call arguments are not JSON-serializable"},
	}
}

func TestEncoderErrorsAreExact(t *testing.T) {
	for _, c := range encoderErrorCases() {
		e := NewEncoder()
		var err error
		for _, x := range c.events {
			if _, err = e.Encode(x); err != nil {
				break
			}
		}
		require.EqualError(t, err, c.want)
	}
}

func TestReduceErrorsAreExact(t *testing.T) {
	start := pi.Frame{Type: pi.FrameStart, Partial: msg()}
	ts := pi.Frame{Type: pi.FrameTextStart, ContentIndex: pi.Index(0), Block: pi.TextContent{}}
	cases := []struct {
		frames []pi.Frame
		want   string
	}{
		{[]pi.Frame{start, start}, "Assistant message frame sequence contains more than one start frame"},
		{[]pi.Frame{{Type: pi.FrameTextDelta}, start}, "text_delta frame appears before the start frame"},
		{[]pi.Frame{start, {Type: pi.FrameTextStart, Block: pi.ThinkingContent{}}}, "text_start frame contains thinking content"},
		{[]pi.Frame{start, ts, ts}, "Cannot start assistant message block at index 0: already exists"},
		{[]pi.Frame{start, {Type: pi.FrameTextStart, ContentIndex: pi.Index(2), Block: pi.TextContent{}}}, "Cannot start assistant message block at index 2: would leave a gap"},
		{[]pi.Frame{start, {Type: pi.FrameTextDelta, ContentIndex: pi.Index(0)}}, "text_delta frame has no started block at index 0"},
		{[]pi.Frame{start, ts, {Type: pi.FrameToolCallDelta, ContentIndex: pi.Index(0)}}, "toolcall_delta frame expected toolCall block at index 0, found text"},
		{[]pi.Frame{start, ts, {Type: pi.FrameTextEnd}, {Type: pi.FrameTextDelta}}, "text_delta frame follows the end of block at index 0"},
		{[]pi.Frame{start, {Type: pi.FrameTextEnd, ContentIndex: pi.ContentIndex{Invalid: "undefined"}}}, "Invalid assistant message frame contentIndex: undefined"},
	}
	for _, c := range cases {
		_, err := Reduce(c.frames)
		require.EqualError(t, err, c.want)
	}
	m, err := Reduce([]pi.Frame{{Type: pi.FrameTextDelta}})
	require.NoError(t, err)
	require.Nil(t, m)
}

// Delta frames come from batches (deltaFrame): every frame handed out must
// stay intact and distinct while later events are encoded, across batch
// boundaries, and editing one must not touch another.
func TestDeltaFramesStayIntactAcrossBatches(t *testing.T) {
	e := NewEncoder()
	live := msg(pi.TextContent{}, pi.ToolCall{ID: "c", Name: "n", Arguments: pi.EmptyObject()})
	_, err := e.Encode(ev(pi.EventStart, 0, live))
	require.NoError(t, err)
	_, err = e.Encode(ev(pi.EventTextStart, 0, live))
	require.NoError(t, err)
	_, err = e.Encode(ev(pi.EventToolCallStart, 1, live))
	require.NoError(t, err)
	n := 3*deltaSlabSize + 5
	kept := make([]*pi.Frame, n)
	for k := range kept {
		x := &pi.Event{Type: pi.EventTextDelta, ContentIndex: pi.Index(0), Delta: "t" + itoa(k), Partial: live}
		want := pi.FrameTextDelta
		if k%3 == 0 {
			x.Type, x.ContentIndex, want = pi.EventToolCallDelta, pi.Index(1), pi.FrameToolCallDelta
		}
		f, err := e.Encode(x)
		require.NoError(t, err)
		require.Equal(t, want, f.Type)
		kept[k] = f
	}
	kept[0].Delta = "edited"
	for k, f := range kept {
		want := "t" + itoa(k)
		if k == 0 {
			want = "edited"
		}
		require.Equal(t, want, f.Delta, "frame %d", k)
		for j := k + 1; j < len(kept); j++ {
			require.NotSame(t, f, kept[j])
		}
	}
}

func itoa(n int) string { return pi.FormatNumber(float64(n)) }

// pi-ai utils/assistant-message-frame.js AssistantMessageFrameEncoder.encode:
// an error before start (a provider setup failure) gives no frame and no
// error, and ends the stream; done before start is pi's error.
func TestPreStartErrorGivesNoFrame(t *testing.T) {
	e := NewEncoder()
	f, err := e.Encode(&pi.Event{Type: pi.EventError, Reason: pi.StopError, Message: msg()})
	require.NoError(t, err)
	require.Nil(t, f)
	_, err = e.Encode(ev(pi.EventStart, 0, msg()))
	require.EqualError(t, err, "Assistant message event start follows a terminal event")
	m, err := Reduce(nil)
	require.NoError(t, err)
	require.Nil(t, m, "no frames reduce to no message")
}

// Content built from pointers reads like the values (a nil pointer like a
// missing block) instead of panicking in the codec's type switches.
func TestPointerContentDoesNotPanic(t *testing.T) {
	var nilText *pi.TextContent
	live := msg(&pi.TextContent{Text: "ab"}, &pi.ToolCall{ID: "c", Name: "n", Arguments: pi.EmptyObject()},
		&pi.ThinkingContent{Thinking: "t"}, nilText)
	e := NewEncoder()
	var fs []pi.Frame
	for _, x := range []*pi.Event{
		ev(pi.EventStart, 0, msg()),
		ev(pi.EventTextStart, 0, live),
		ev(pi.EventToolCallStart, 1, live),
		{Type: pi.EventToolCallDelta, ContentIndex: pi.Index(1), Delta: `{"a":1`, Partial: live},
		{Type: pi.EventTextEnd, ContentIndex: pi.Index(0), Content: "abc", Partial: live},
		ev(pi.EventThinkingStart, 2, live),
	} {
		f, err := e.Encode(x)
		require.NoError(t, err, x.Type)
		if f != nil {
			fs = append(fs, *f)
		}
	}
	_, err := e.Encode(ev(pi.EventTextStart, 3, live))
	require.EqualError(t, err, "text_start event has no content block at index 3")

	fs[1].Block = &pi.TextContent{Text: "ab"}
	fs[2].Block = &pi.ToolCall{ID: "c", Name: "n", Arguments: pi.EmptyObject()}
	fs = append(fs, pi.Frame{Type: pi.FrameToolCallCheckpoint, ContentIndex: pi.Index(1), JSON: `{"b":2`})
	m, err := Reduce(fs)
	require.NoError(t, err)
	var got []string
	for _, c := range m.Content {
		got = append(got, string(c.AppendJSON(nil)))
	}
	require.Equal(t, []string{`{"type":"text","text":"abc"}`, `{"type":"toolCall","id":"c","name":"n","arguments":{"b":2}}`,
		`{"type":"thinking","thinking":"t"}`}, got)
}
