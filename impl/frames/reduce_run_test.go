package frames

import (
	"testing"

	"github.com/frameproof/frameproof/impl/pi"
	"github.com/stretchr/testify/require"
)

// runFrames is a stream with runs of deltas on three blocks of each kind,
// interleaved, with ends between them: what Reduce's run path skips its
// checks on.
func runFrames() []pi.Frame {
	str := func(s string) *string { return &s }
	tc := pi.ToolCall{ID: "c", Name: "n", Arguments: pi.EmptyObject()}
	return []pi.Frame{
		{Type: pi.FrameStart, Partial: msg()},
		{Type: pi.FrameTextStart, ContentIndex: pi.Index(0), Block: pi.TextContent{Text: "a"}},
		{Type: pi.FrameTextDelta, ContentIndex: pi.Index(0), Delta: "b"},
		{Type: pi.FrameTextDelta, ContentIndex: pi.Index(0), Delta: "c"},
		{Type: pi.FrameThinkingStart, ContentIndex: pi.Index(1), Block: pi.ThinkingContent{}},
		{Type: pi.FrameThinkingDelta, ContentIndex: pi.Index(1), Delta: "t"},
		{Type: pi.FrameTextDelta, ContentIndex: pi.Index(0), Delta: "d"},
		{Type: pi.FrameTextEnd, ContentIndex: pi.Index(0), Content: "abcd", TextSignature: str("s")},
		{Type: pi.FrameToolCallStart, ContentIndex: pi.Index(2), Block: tc},
		{Type: pi.FrameToolCallDelta, ContentIndex: pi.Index(2), Delta: `{"x":`},
		{Type: pi.FrameToolCallDelta, ContentIndex: pi.Index(2), Delta: `[1,`},
		{Type: pi.FrameThinkingDelta, ContentIndex: pi.Index(1), Delta: "u"},
		{Type: pi.FrameThinkingEnd, ContentIndex: pi.Index(1), Content: "tu"},
		{Type: pi.FrameToolCallDelta, ContentIndex: pi.Index(2), Delta: `2]`},
		{Type: pi.FrameToolCallDelta, ContentIndex: pi.Index(2), Delta: `}`},
	}
}

// reduceOneByOne is Reduce through Reducer.Apply, which takes no runs.
func reduceOneByOne(fs []pi.Frame) (*pi.AssistantMessage, error) {
	r := NewReducer()
	for i := range fs {
		if err := r.Apply(&fs[i]); err != nil {
			return nil, err
		}
	}
	return r.Message()
}

func requireSameReduce(t *testing.T, fs []pi.Frame, what string) {
	t.Helper()
	want, wantErr := reduceOneByOne(fs)
	got, err := Reduce(fs)
	require.Equal(t, errString(wantErr), errString(err), what)
	require.Equal(t, want, got, what)
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// Reduce's run of deltas (appendRun) gives what frame-at-a-time reducing
// gives, on the stream and on every swap, drop and duplicate of its frames
// and every delta re-typed or re-indexed: deltas after an end, on another
// block, of another kind, at an invalid index, out of order.
func TestReduceRunsMatchOneByOne(t *testing.T) {
	base := runFrames()
	requireSameReduce(t, base, "whole stream")
	m, err := Reduce(base)
	require.NoError(t, err)
	require.Equal(t, pi.TextContent{Text: "abcd", TextSignature: pi.Str("s")}, m.Content[0])
	for i := range base {
		requireSameReduce(t, append(append([]pi.Frame{}, base[:i]...), base[i+1:]...), sprintf("drop %d", i))
		requireSameReduce(t, append(append([]pi.Frame{}, base[:i+1]...), base[i:]...), sprintf("duplicate %d", i))
		for _, typ := range []pi.FrameType{pi.FrameTextDelta, pi.FrameThinkingDelta, pi.FrameToolCallDelta} {
			fs := append([]pi.Frame{}, base...)
			fs[i].Type = typ
			requireSameReduce(t, fs, sprintf("frame %d as %s", i, typ))
		}
		for _, idx := range []pi.ContentIndex{pi.Index(0), pi.Index(1), pi.Index(2), pi.Index(5), {N: 2, Invalid: "2.5"}} {
			fs := append([]pi.Frame{}, base...)
			fs[i].ContentIndex = idx
			requireSameReduce(t, fs, sprintf("frame %d at %v", i, idx))
		}
		for j := i + 1; j < len(base); j++ {
			fs := append([]pi.Frame{}, base...)
			fs[i], fs[j] = fs[j], fs[i]
			requireSameReduce(t, fs, sprintf("swap %d %d", i, j))
		}
	}
}
