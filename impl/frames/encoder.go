package frames

import "github.com/frameproof/frameproof/impl/pi"

// emptyParsedToolArguments is JSON.stringify(parseStreamingJson("")).
const emptyParsedToolArguments = "{}"

type blockKind string

const (
	kindText     blockKind = "text"
	kindThinking blockKind = "thinking"
	kindToolCall blockKind = "toolCall"
)

// openBlock is the encoder's state for one started, unended block.
type openBlock struct {
	kind blockKind
	// text and thinking: UTF-16 length of the start snapshot, and of all
	// deltas seen so far. Once past the snapshot, every later delta is
	// emitted whole and deltaChars is no longer counted (pastSnapshot).
	covered, deltaChars int
	pastSnapshot        bool
	// AppendFrame's shortcut, armed once every later delta of the block is
	// emitted whole (past the snapshot, or caught up): the delta event type
	// and the frame's constant head (pi.AppendDeltaFrameHead), kept inline
	// so arming it allocates nothing; headLen 0 means not armed.
	deltaType pi.EventType
	head      [maxHead]byte
	headLen   int
	// tool calls: whether the delta JSON has caught up with the start
	// snapshot; until then the snapshot's JSON and the buffered deltas.
	caughtUp  bool
	snapshot  string
	catchupJS []byte
}

// Encoder is pi-ai's AssistantMessageFrameEncoder for one assistant stream.
// The zero value is ready to use. An Encoder must not be copied once used:
// it holds pointers into itself (hot).
type Encoder struct {
	started, terminal bool
	blocks            openBlocks
	// hot caches the block the last delta went to (hotIndex), since a
	// stream sends runs of deltas to one block; nil when not cached.
	hot      *openBlock
	hotIndex int
	// deltaSlab is the unused tail of the current batch of delta frames.
	deltaSlab []pi.Frame
}

// NewEncoder returns an encoder for one stream.
func NewEncoder() *Encoder { return &Encoder{} }

// OpenBlocks is how many blocks the encoder tracks (for state-size checks).
func (e *Encoder) OpenBlocks() int { return e.blocks.count() }

// RetainedBytes is the size of the buffered tool-call JSON the encoder holds.
func (e *Encoder) RetainedBytes() int {
	n := 0
	e.blocks.each(func(b *openBlock) { n += len(b.snapshot) + len(b.catchupJS) })
	return n
}

// Encode turns one event into at most one frame. A nil frame with a nil
// error means "no frame" (covered deltas, done, error). Errors are pi's.
func (e *Encoder) Encode(ev *pi.Event) (*pi.Frame, error) {
	if _, _, isDelta := deltaKind(ev.Type); isDelta && e.started && !e.terminal {
		return e.encodeDelta(ev) // delta frames come from a batch (deltaFrame)
	}
	var f pi.Frame
	if ok, err := e.encode(ev, &f); !ok {
		return nil, err
	}
	out := f // only a frame that exists goes to the heap
	return &out, nil
}

// encode is Encode writing the frame into *f; ok is false for no frame.
// AppendFrame passes a frame on its stack, so it allocates no pi.Frame.
func (e *Encoder) encode(ev *pi.Event, f *pi.Frame) (ok bool, err error) {
	if e.terminal {
		return false, fail("Assistant message event %s follows a terminal event", ev.Type)
	}
	switch ev.Type {
	case pi.EventStart:
		return e.start(ev, f)
	case pi.EventDone:
		if !e.started {
			return false, fail("Assistant message done event appears before start")
		}
		e.terminal = true
		return false, nil
	case pi.EventError:
		e.terminal = true
		return false, nil
	}
	if !e.started {
		return false, fail("Assistant message %s event appears before start", ev.Type)
	}
	switch ev.Type {
	case pi.EventTextStart:
		return e.textStart(ev, f)
	case pi.EventThinkingStart:
		return e.thinkingStart(ev, f)
	case pi.EventToolCallStart:
		return e.toolCallStart(ev, f)
	case pi.EventTextDelta, pi.EventThinkingDelta, pi.EventToolCallDelta:
		return e.delta(ev, f)
	case pi.EventTextEnd:
		return e.textEnd(ev, f)
	case pi.EventThinkingEnd:
		return e.thinkingEnd(ev, f)
	case pi.EventToolCallEnd:
		return e.toolCallEnd(ev, f)
	}
	return false, nil
}

// The handlers below each take one event type past encode's lifecycle
// checks and write its frame into *f (ok false: no frame).

func (e *Encoder) start(ev *pi.Event, f *pi.Frame) (bool, error) {
	if err := e.begin(ev); err != nil {
		return false, err
	}
	m := startMessage(ev.Partial)
	*f = pi.Frame{Type: pi.FrameStart, Partial: &m}
	return true, nil
}

// begin is the start event's checks and state change; the frame is
// {type: "start", partial: startMessage(ev.Partial)}.
func (e *Encoder) begin(ev *pi.Event) error {
	if e.started {
		return fail("Assistant message stream contains more than one start event")
	}
	if ev.Partial == nil {
		return fail("frames: start event has no partial")
	}
	e.started = true
	return nil
}

func (e *Encoder) textStart(ev *pi.Event, f *pi.Frame) (bool, error) {
	c, err := eventBlock(ev, kindText)
	if err != nil {
		return false, err
	}
	text := c.(pi.TextContent)
	if err := e.startBlock(ev.ContentIndex, openBlock{kind: kindText, covered: pi.UTF16Len(text.Text)}); err != nil {
		return false, err
	}
	*f = pi.Frame{Type: pi.FrameTextStart, ContentIndex: ev.ContentIndex, Block: c} // c, not text: boxing text again would allocate
	return true, nil
}

func (e *Encoder) thinkingStart(ev *pi.Event, f *pi.Frame) (bool, error) {
	c, err := eventBlock(ev, kindThinking)
	if err != nil {
		return false, err
	}
	th := c.(pi.ThinkingContent)
	if err := e.startBlock(ev.ContentIndex, openBlock{kind: kindThinking, covered: pi.UTF16Len(th.Thinking)}); err != nil {
		return false, err
	}
	*f = pi.Frame{Type: pi.FrameThinkingStart, ContentIndex: ev.ContentIndex, Block: c}
	return true, nil
}

// toolCallStart records the start arguments' JSON as the snapshot later
// deltas must catch up with (none when they are the empty object).
func (e *Encoder) toolCallStart(ev *pi.Event, f *pi.Frame) (bool, error) {
	c, err := eventBlock(ev, kindToolCall)
	if err != nil {
		return false, err
	}
	tc := c.(pi.ToolCall)
	if tc.Arguments.IsUndefined() {
		return false, fail("Tool-call arguments are not JSON-serializable")
	}
	snapshot := stringify(tc.Arguments)
	st := openBlock{kind: kindToolCall, caughtUp: snapshot == emptyParsedToolArguments}
	if !st.caughtUp {
		st.snapshot = snapshot
	}
	if err := e.startBlock(ev.ContentIndex, st); err != nil {
		return false, err
	}
	*f = pi.Frame{Type: pi.FrameToolCallStart, ContentIndex: ev.ContentIndex, Block: c}
	return true, nil
}

// delta gives a delta frame, a tool-call checkpoint, or no frame for a delta
// the start snapshot already covers.
func (e *Encoder) delta(ev *pi.Event, f *pi.Frame) (bool, error) {
	kind, delta, _ := deltaKind(ev.Type)
	ft, text, err := e.deltaStep(ev, kind, delta)
	if err != nil || ft == "" {
		return false, err
	}
	*f = pi.Frame{Type: ft, ContentIndex: ev.ContentIndex, Delta: text}
	if ft == pi.FrameToolCallCheckpoint {
		*f = pi.Frame{Type: ft, ContentIndex: ev.ContentIndex, JSON: text}
	}
	return true, nil
}

func (e *Encoder) textEnd(ev *pi.Event, f *pi.Frame) (bool, error) {
	c, err := eventBlock(ev, kindText)
	if err != nil {
		return false, err
	}
	if err := e.endBlock(ev.ContentIndex, kindText); err != nil {
		return false, err
	}
	*f = pi.Frame{Type: pi.FrameTextEnd, ContentIndex: ev.ContentIndex, Content: ev.Content,
		TextSignature: c.(pi.TextContent).TextSignature}
	return true, nil
}

func (e *Encoder) thinkingEnd(ev *pi.Event, f *pi.Frame) (bool, error) {
	c, err := eventBlock(ev, kindThinking)
	if err != nil {
		return false, err
	}
	if err := e.endBlock(ev.ContentIndex, kindThinking); err != nil {
		return false, err
	}
	th := c.(pi.ThinkingContent)
	*f = pi.Frame{Type: pi.FrameThinkingEnd, ContentIndex: ev.ContentIndex, Content: ev.Content,
		ThinkingSignature: th.ThinkingSignature, Redacted: th.Redacted}
	return true, nil
}

func (e *Encoder) toolCallEnd(ev *pi.Event, f *pi.Frame) (bool, error) {
	if _, err := eventBlock(ev, kindToolCall); err != nil {
		return false, err
	}
	if ev.ToolCall == nil {
		return false, fail("toolcall_end event has invalid tool call at index %s", ev.ContentIndex.JS())
	}
	if err := e.endBlock(ev.ContentIndex, kindToolCall); err != nil {
		return false, err
	}
	tc := ev.ToolCall
	*f = pi.Frame{Type: pi.FrameToolCallEnd, ContentIndex: ev.ContentIndex, ID: tc.ID, Name: tc.Name,
		Arguments: tc.Arguments, ThoughtSignature: tc.ThoughtSignature, Namespace: tc.Namespace}
	return true, nil
}

// startMessage copies the metadata pi's start frame keeps, with empty
// content and stopReason "pending".
func startMessage(m *pi.AssistantMessage) pi.AssistantMessage {
	return pi.AssistantMessage{
		Content:               []pi.Content{},
		API:                   m.API,
		Provider:              m.Provider,
		Model:                 m.Model,
		ResponseModel:         m.ResponseModel,
		ResponseID:            m.ResponseID,
		ProviderThinkingLevel: m.ProviderThinkingLevel,
		Diagnostics:           m.Diagnostics,
		Usage:                 m.Usage,
		StopReason:            pi.StopPending,
		Timestamp:             m.Timestamp,
	}
}

func assertContentIndex(i pi.ContentIndex) error {
	if !i.Valid() {
		return fail("Invalid assistant message frame contentIndex: %s", i.JS())
	}
	return nil
}

// eventBlock is partial.content[contentIndex], which must be of kind want.
func eventBlock(ev *pi.Event, want blockKind) (pi.Content, error) {
	if err := assertContentIndex(ev.ContentIndex); err != nil {
		return nil, err
	}
	if ev.Partial == nil || ev.ContentIndex.N >= len(ev.Partial.Content) {
		return nil, fail("%s event has no content block at index %d", ev.Type, ev.ContentIndex.N)
	}
	c := blockValue(ev.Partial.Content[ev.ContentIndex.N])
	if c == nil {
		return nil, fail("%s event has no content block at index %d", ev.Type, ev.ContentIndex.N)
	}
	if c.ContentType() != string(want) {
		return nil, fail("%s event points to %s block at index %d", ev.Type, c.ContentType(), ev.ContentIndex.N)
	}
	return c, nil
}

func (e *Encoder) startBlock(i pi.ContentIndex, st openBlock) error {
	if err := assertContentIndex(i); err != nil {
		return err
	}
	if e.blocks.get(i.N) != nil {
		return fail("Assistant message block %d starts more than once", i.N)
	}
	e.blocks.add(i.N, st)
	return nil
}

func (e *Encoder) block(i pi.ContentIndex, kind blockKind) (*openBlock, error) {
	st := e.hot
	if st == nil || e.hotIndex != i.N || i.Invalid != "" {
		if err := assertContentIndex(i); err != nil {
			return nil, err
		}
		if st = e.blocks.get(i.N); st == nil {
			return nil, fail("Assistant message %s block %d has not started", kind, i.N)
		}
		e.hot, e.hotIndex = st, i.N
	}
	if st.kind != kind {
		return nil, fail("Assistant message block %d is %s, not %s", i.N, st.kind, kind)
	}
	return st, nil
}

func (e *Encoder) endBlock(i pi.ContentIndex, kind blockKind) error {
	if _, err := e.block(i, kind); err != nil {
		return err
	}
	e.blocks.remove(i.N)
	if e.hotIndex == i.N {
		e.hot = nil
	}
	return nil
}

// isJSONPrefix is pi's structural "current extends snapshot" test.
func isJSONPrefix(snapshot, current pi.JSONValue) bool {
	switch snapshot.Kind() {
	case pi.String:
		return current.Kind() == pi.String && pi.HasPrefixUTF16(current.Str(), snapshot.Str())
	case pi.Array:
		if current.Kind() != pi.Array || len(snapshot.Array()) > len(current.Array()) {
			return false
		}
		for i, v := range snapshot.Array() {
			if !isJSONPrefix(v, current.Array()[i]) {
				return false
			}
		}
		return true
	case pi.Object:
		if current.Kind() != pi.Object {
			return false
		}
		cur := current.ObjectValue()
		so := snapshot.ObjectValue()
		for _, k := range so.Keys() {
			sv, _ := so.Get(k)
			cv, ok := cur.Get(k)
			if !ok || !isJSONPrefix(sv, cv) {
				return false
			}
		}
		return true
	}
	return snapshot.Equal(current) // Object.is for primitives
}
