package frames

import "github.com/frameproof/frameproof/impl/pi"

// AppendFrame is Encode followed by serializing the frame, for callers that
// store or send frames as JSON (a frame log, a wire): it appends to dst
// exactly the bytes JSON.stringify writes for the frame pi-ai's encoder
// returns for ev, and reports framed = true. When the event gives no frame
// (done, error, a delta the start snapshot already covered) it returns dst
// unchanged and framed = false; pi's encoder returns undefined there, which
// JSON.stringify does not write either. On error dst is returned unchanged
// and the error is Encode's, after the same state change.
//
// Delta events, the steady state of a stream, are written without building
// a pi.Frame: with a dst of enough capacity they allocate nothing, and their
// cost does not depend on how long the message already is. Other events go
// through Encode's decision and (*pi.Frame).AppendJSON, so the bytes are
// the same as Encode's frame by construction.
func (e *Encoder) AppendFrame(dst []byte, ev *pi.Event) (out []byte, framed bool, err error) {
	// The shortcut: a delta to the block the last delta went to, once that
	// block emits every delta whole. It is what deltaStep decides for such
	// an event (no frame for an empty delta, else the delta unchanged), with
	// the frame's head written once per block instead of once per event.
	if st := e.hot; st != nil && st.headLen > 0 && !e.terminal && e.hotIndex == ev.ContentIndex.N &&
		ev.ContentIndex.Invalid == "" && ev.Type == st.deltaType {
		if ev.Delta == "" {
			return dst, false, nil
		}
		return pi.AppendDeltaFrameTail(append(dst, st.head[:st.headLen]...), ev.Delta), true, nil
	}
	kind, delta, isDelta := deltaKind(ev.Type)
	if !isDelta || !e.started || e.terminal {
		return e.appendEncoded(dst, ev)
	}
	ft, text, err := e.deltaStep(ev, kind, delta)
	if err == nil {
		e.keepHead(ev, delta)
	}
	switch {
	case err != nil || ft == "":
		return dst, false, err
	case ft == pi.FrameToolCallCheckpoint:
		return appendCheckpoint(dst, ev.ContentIndex, text), true, nil
	}
	return pi.AppendDeltaFrame(dst, ft, ev.ContentIndex, text), true, nil
}

// keepHead arms AppendFrame's shortcut for the block ev's delta went to
// (deltaStep left it in e.hot) once that block emits every delta whole.
// A head longer than maxHead (a content index of 15 digits or more, which
// no partial's content can reach) leaves the shortcut unarmed.
func (e *Encoder) keepHead(ev *pi.Event, delta pi.FrameType) {
	st := e.hot
	if st == nil || st.headLen > 0 || !(st.pastSnapshot || st.caughtUp) {
		return
	}
	head := pi.AppendDeltaFrameHead(st.head[:0], delta, ev.ContentIndex)
	if len(head) > maxHead {
		return // append moved it out of the array
	}
	st.deltaType, st.headLen = ev.Type, len(head)
}

// maxHead is the longest delta frame head kept for the shortcut:
// {"type":"thinking_delta","contentIndex":N,"delta":" with N of up to 14 digits.
const maxHead = 64

// appendEncoded is AppendFrame through Encode's decision (encode), for the
// events that are not the per-event hot path (and for every event an
// encoder will reject), with the frame on the stack. Kept out of
// AppendFrame so the hot path's stack frame stays small.
func (e *Encoder) appendEncoded(dst []byte, ev *pi.Event) ([]byte, bool, error) {
	if ev.Type == pi.EventStart && !e.terminal {
		return e.appendStart(dst, ev)
	}
	var f pi.Frame
	if ok, err := e.encode(ev, &f); !ok {
		return dst, false, err
	}
	return f.AppendJSON(dst), true, nil
}

// appendStart is encode's start with the frame's message on the stack
// (a message a pi.Frame points to goes to the heap): once per stream, but
// the largest frame of a short one.
func (e *Encoder) appendStart(dst []byte, ev *pi.Event) ([]byte, bool, error) {
	if err := e.begin(ev); err != nil {
		return dst, false, err
	}
	m := startMessage(ev.Partial)
	return pi.AppendStartFrame(dst, &m), true, nil
}

// appendCheckpoint writes a toolcall_checkpoint frame (once per tool call).
func appendCheckpoint(dst []byte, i pi.ContentIndex, json string) []byte {
	f := pi.Frame{Type: pi.FrameToolCallCheckpoint, ContentIndex: i, JSON: json}
	return f.AppendJSON(dst)
}
