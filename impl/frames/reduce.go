package frames

import (
	"slices"

	"github.com/frameproof/frameproof/impl/pi"
)

// reduceBlock is the reducer's state for one block started by a frame.
type reduceBlock struct {
	kind  blockKind
	ended bool
	// text/thinking: appended deltas not yet written back into the block
	// (nil when the block's own text is current). Keeps Reduce linear.
	pending []byte
	// tool calls: the JSON argument stream (checkpoint + deltas).
	json []byte
}

// deltaKinds is the block kind each delta frame type appends to.
func deltaKinds(t pi.FrameType) (blockKind, bool) {
	switch t {
	case pi.FrameTextDelta:
		return kindText, true
	case pi.FrameThinkingDelta:
		return kindThinking, true
	case pi.FrameToolCallDelta:
		return kindToolCall, true
	}
	return "", false
}

// Reduce is reduceAssistantMessageFrames: it replays frames into the
// message they describe without mutating them. It returns nil, nil when
// there is no start frame.
//
// A run of deltas costs ≈ 16–18 ns per frame at 64 KB and 1 MB (`frameproof
// bench --family codec`, "Reduce parsed"; pi-ai's reducer over parsed
// frames ≈ 22–25 ns): a type and index check, one copy of a 1–16 byte
// delta, and a pass over each 248-byte pi.Frame to size the text first. At
// 1 MB the frames (30 MB) stream from memory, twice; one pass with a
// growing buffer measured no faster there and slower at 64 KB.
func Reduce(frames []pi.Frame) (*pi.AssistantMessage, error) {
	r := reducer{states: map[int]*reduceBlock{}}
	for i := 0; i < len(frames); i++ {
		i += r.appendRun(frames[i:])
		if i == len(frames) {
			break
		}
		if err := r.apply(&frames[i]); err != nil {
			return nil, err
		}
	}
	return r.finish()
}

// Reducer is Reduce one frame at a time, for callers that read frames in
// pages. Message returns what Reduce would return for the frames so far.
type Reducer struct{ r reducer }

// NewReducer returns an empty incremental reducer.
func NewReducer() *Reducer { return &Reducer{r: reducer{states: map[int]*reduceBlock{}}} }

// Apply adds one frame; after an error the reducer must not be used again.
func (x *Reducer) Apply(f *pi.Frame) error { return x.r.apply(f) }

// Message returns the reduced message for the frames applied so far.
func (x *Reducer) Message() (*pi.AssistantMessage, error) {
	// finish rewrites pending text into the message; work on a copy so
	// more frames can follow.
	cp := reducer{message: x.r.message.Clone(), frameBeforeStart: x.r.frameBeforeStart, states: map[int]*reduceBlock{}}
	for k, v := range x.r.states {
		c := *v
		cp.states[k] = &c
	}
	return cp.finish()
}

type reducer struct {
	message          *pi.AssistantMessage
	frameBeforeStart pi.FrameType
	states           map[int]*reduceBlock
	// last is the block the last delta went to (at lastN): deltas come in
	// runs on one block, and appendRun takes them without the lookup.
	last  *reduceBlock
	lastN int
}

func (r *reducer) apply(f *pi.Frame) error {
	if f.Type == pi.FrameStart {
		if r.message != nil {
			return fail("Assistant message frame sequence contains more than one start frame")
		}
		if r.frameBeforeStart != "" {
			return fail("%s frame appears before the start frame", r.frameBeforeStart)
		}
		r.message = f.Partial.Clone()
		return nil
	}
	if r.message == nil {
		if r.frameBeforeStart == "" {
			r.frameBeforeStart = f.Type
		}
		return nil
	}
	switch f.Type {
	case pi.FrameTextStart, pi.FrameThinkingStart, pi.FrameToolCallStart:
		want := map[pi.FrameType]blockKind{pi.FrameTextStart: kindText, pi.FrameThinkingStart: kindThinking, pi.FrameToolCallStart: kindToolCall}[f.Type]
		block := blockValue(f.Block)
		if block == nil {
			return fail("frames: %s frame has no content", f.Type)
		}
		if block.ContentType() != string(want) {
			return fail("%s frame contains %s content", f.Type, block.ContentType())
		}
		return r.appendBlock(f.ContentIndex, block, want)
	case pi.FrameTextDelta, pi.FrameThinkingDelta:
		kind := kindText
		if f.Type == pi.FrameThinkingDelta {
			kind = kindThinking
		}
		st, err := r.active(f, kind)
		if err != nil {
			return err
		}
		if st.pending == nil {
			st.pending = []byte(blockText(r.message.Content[f.ContentIndex.N]))
		}
		st.pending = appendJS(st.pending, f.Delta)
		r.last, r.lastN = st, f.ContentIndex.N
	case pi.FrameTextEnd:
		st, err := r.active(f, kindText)
		if err != nil {
			return err
		}
		st.pending, st.ended = nil, true
		r.message.Content[f.ContentIndex.N] = pi.TextContent{Text: f.Content, TextSignature: f.TextSignature}
	case pi.FrameThinkingEnd:
		st, err := r.active(f, kindThinking)
		if err != nil {
			return err
		}
		st.pending, st.ended = nil, true
		r.message.Content[f.ContentIndex.N] = pi.ThinkingContent{Thinking: f.Content,
			ThinkingSignature: f.ThinkingSignature, Redacted: f.Redacted}
	case pi.FrameToolCallCheckpoint:
		st, err := r.active(f, kindToolCall)
		if err != nil {
			return err
		}
		st.json = append(st.json[:0], f.JSON...)
		tc := r.message.Content[f.ContentIndex.N].(pi.ToolCall)
		tc.Arguments = ParseStreamingJSON(f.JSON)
		r.message.Content[f.ContentIndex.N] = tc
	case pi.FrameToolCallDelta:
		st, err := r.active(f, kindToolCall)
		if err != nil {
			return err
		}
		st.json = appendJS(st.json, f.Delta)
		r.last, r.lastN = st, f.ContentIndex.N
	case pi.FrameToolCallEnd:
		st, err := r.active(f, kindToolCall)
		if err != nil {
			return err
		}
		st.ended = true
		r.message.Content[f.ContentIndex.N] = pi.ToolCall{ID: f.ID, Name: f.Name, Arguments: f.Arguments,
			ThoughtSignature: f.ThoughtSignature, Namespace: f.Namespace}
	}
	return nil
}

// appendRun appends the deltas of the delta frames that open frames and
// go to the block the last delta went to, and returns how many it took.
// activeBlock's checks still hold there: the index was valid, a block's
// kind never changes (its start and end frames write content of that
// kind), and only an end frame ends it. It measures the run first so the
// buffer grows once, and keeps it in a local while the run lasts.
func (r *reducer) appendRun(frames []pi.Frame) int {
	st := r.last
	if st == nil || st.ended {
		return 0
	}
	buf := &st.pending
	if st.kind == kindToolCall {
		buf = &st.json
	}
	n, size := 0, 0
	for ; n < len(frames); n++ {
		f := &frames[n]
		if kind, ok := deltaKinds(f.Type); !ok || kind != st.kind || f.ContentIndex.N != r.lastN || f.ContentIndex.Invalid != "" {
			break
		}
		size += len(f.Delta)
	}
	if n == 0 {
		return 0
	}
	b := slices.Grow(*buf, size)
	for i := range frames[:n] {
		b = appendJS(b, frames[i].Delta)
	}
	*buf = b
	return n
}

func blockText(c pi.Content) string {
	switch b := c.(type) {
	case pi.TextContent:
		return b.Text
	case pi.ThinkingContent:
		return b.Thinking
	}
	return ""
}

func (r *reducer) appendBlock(i pi.ContentIndex, block pi.Content, kind blockKind) error {
	if err := assertContentIndex(i); err != nil {
		return err
	}
	if n := len(r.message.Content); i.N != n {
		reason := "would leave a gap"
		if i.N < n {
			reason = "already exists"
		}
		return fail("Cannot start assistant message block at index %d: %s", i.N, reason)
	}
	r.message.Content = append(r.message.Content, block)
	r.states[i.N] = &reduceBlock{kind: kind}
	return nil
}

func (r *reducer) active(f *pi.Frame, kind blockKind) (*reduceBlock, error) {
	if err := assertContentIndex(f.ContentIndex); err != nil {
		return nil, err
	}
	i := f.ContentIndex.N
	st, ok := r.states[i]
	if !ok || i >= len(r.message.Content) || r.message.Content[i] == nil {
		return nil, fail("%s frame has no started block at index %d", f.Type, i)
	}
	found := r.message.Content[i].ContentType()
	if st.kind != kind || found != string(kind) {
		return nil, fail("%s frame expected %s block at index %d, found %s", f.Type, kind, i, found)
	}
	if st.ended {
		return nil, fail("%s frame follows the end of block at index %d", f.Type, i)
	}
	return st, nil
}

// finish writes pending text back and parses the JSON of unended tool calls.
func (r *reducer) finish() (*pi.AssistantMessage, error) {
	if r.message == nil {
		return nil, nil
	}
	for i, st := range r.states {
		switch b := r.message.Content[i].(type) {
		case pi.TextContent:
			if st.pending != nil {
				b.Text = string(st.pending)
				r.message.Content[i] = b
			}
		case pi.ThinkingContent:
			if st.pending != nil {
				b.Thinking = string(st.pending)
				r.message.Content[i] = b
			}
		case pi.ToolCall:
			if st.kind == kindToolCall && !st.ended && len(st.json) > 0 {
				b.Arguments = ParseStreamingJSON(string(st.json))
				r.message.Content[i] = b
			}
		}
		st.pending = nil
	}
	return r.message, nil
}
