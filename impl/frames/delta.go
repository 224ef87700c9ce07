package frames

import "github.com/frameproof/frameproof/impl/pi"

// The *_delta events are the per-event hot path of a stream. Their decision
// (which frame, if any, and its one string member) is made once, in
// deltaStep, and shared by Encode (which builds a *pi.Frame) and AppendFrame
// (which writes the frame's JSON without building one), so the two APIs
// cannot drift apart.

// deltaStep decides a delta event of the given kind (see deltaKind) for a
// started, non-terminal encoder. ft is "" for no frame; otherwise the frame
// is {type: ft, contentIndex: ev.ContentIndex, <member>: text}, where member
// is "json" for a toolcall_checkpoint and "delta" for the *_delta types.
func (e *Encoder) deltaStep(ev *pi.Event, kind blockKind, delta pi.FrameType) (ft pi.FrameType, text string, err error) {
	if kind == kindToolCall {
		return e.toolCallDelta(ev)
	}
	return e.textDelta(ev, kind, delta)
}

// deltaKind maps a delta event type to its block kind and delta frame
// type; ok is false for every other event type.
func deltaKind(t pi.EventType) (kind blockKind, delta pi.FrameType, ok bool) {
	switch t {
	case pi.EventTextDelta:
		return kindText, pi.FrameTextDelta, true
	case pi.EventThinkingDelta:
		return kindThinking, pi.FrameThinkingDelta, true
	case pi.EventToolCallDelta:
		return kindToolCall, pi.FrameToolCallDelta, true
	}
	return "", "", false
}

// encodeDelta is Encode for a delta event.
func (e *Encoder) encodeDelta(ev *pi.Event) (*pi.Frame, error) {
	kind, delta, _ := deltaKind(ev.Type)
	ft, text, err := e.deltaStep(ev, kind, delta)
	switch {
	case err != nil || ft == "":
		return nil, err
	case ft == pi.FrameToolCallCheckpoint:
		return &pi.Frame{Type: ft, ContentIndex: ev.ContentIndex, JSON: text}, nil
	}
	return e.deltaFrame(ft, ev.ContentIndex, text), nil
}

// deltaSlabSize is how many delta frames Encode allocates at once.
// Delta frames are the per-event hot path, and one ~250-byte allocation per
// frame dominated Encode's cost; a batch amortizes it. The price is
// retention: a delta frame the caller keeps pins the other frames of its
// batch (delta strings only), and the encoder pins the batch it is filling.
// Start, end and checkpoint frames, which can carry whole blocks, are
// allocated one by one so nothing large is pinned. AppendFrame needs none
// of this: it writes delta frames without building them.
const deltaSlabSize = 32

// deltaFrame returns a new delta frame from the current batch.
func (e *Encoder) deltaFrame(t pi.FrameType, i pi.ContentIndex, delta string) *pi.Frame {
	if len(e.deltaSlab) == 0 {
		e.deltaSlab = make([]pi.Frame, deltaSlabSize)
	}
	f := &e.deltaSlab[0]
	f.Type, f.ContentIndex, f.Delta = t, i, delta
	if len(e.deltaSlab) == 1 {
		e.deltaSlab = nil // drop the spent batch; handed-out frames keep it alive
	} else {
		e.deltaSlab = e.deltaSlab[1:]
	}
	return f
}

// textDelta emits the part of a text or thinking delta that the start
// snapshot did not already cover (UTF-16 offsets, as pi counts). Once the
// deltas have passed the snapshot every later delta is emitted whole, so
// the steady state neither counts nor slices.
func (e *Encoder) textDelta(ev *pi.Event, kind blockKind, ft pi.FrameType) (pi.FrameType, string, error) {
	st := e.hot // checked here first: block's full lookup is not inlined
	if st == nil || e.hotIndex != ev.ContentIndex.N || ev.ContentIndex.Invalid != "" || st.kind != kind {
		var err error
		if st, err = e.block(ev.ContentIndex, kind); err != nil {
			return "", "", err
		}
	}
	if st.pastSnapshot {
		if ev.Delta == "" {
			return "", "", nil // pi: covered (0) >= delta.length (0)
		}
		return ft, ev.Delta, nil
	}
	n := pi.UTF16Len(ev.Delta)
	deltaStart := st.deltaChars
	st.deltaChars += n
	st.pastSnapshot = st.deltaChars >= st.covered
	covered := max(0, st.covered-deltaStart)
	if covered >= n {
		return "", "", nil
	}
	return ft, pi.SliceUTF16(ev.Delta, covered), nil
}

// toolCallDelta passes deltas through once the delta JSON has caught up
// with the toolcall_start snapshot; until then it buffers them and emits
// one toolcall_checkpoint with the buffered JSON when it catches up.
func (e *Encoder) toolCallDelta(ev *pi.Event) (pi.FrameType, string, error) {
	st, err := e.block(ev.ContentIndex, kindToolCall)
	if err != nil {
		return "", "", err
	}
	if st.caughtUp {
		if ev.Delta == "" {
			return "", "", nil
		}
		return pi.FrameToolCallDelta, ev.Delta, nil
	}
	st.catchupJS = appendJS(st.catchupJS, ev.Delta)
	buffered := string(st.catchupJS)
	args := ParseStreamingJSON(buffered)
	if stringify(args) != st.snapshot {
		// A legacy provider put the initial input in toolcall_start but
		// streams JSON from empty; its arguments may extend the snapshot.
		if !isJSONPrefix(ParseStreamingJSON(st.snapshot), args) {
			return "", "", nil
		}
	}
	st.caughtUp = true
	st.snapshot = ""
	st.catchupJS = nil
	if buffered == "" {
		return "", "", nil
	}
	return pi.FrameToolCallCheckpoint, buffered, nil
}
