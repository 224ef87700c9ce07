package lanesim

import (
	"github.com/frameproof/frameproof/impl/lane"
)

// startClientFold starts a watching client on ln from a fresh capture.
func (r *runner) startClientFold(ln *lane.Lane) bool {
	c, err := ln.Capture()
	if err != nil {
		r.fail("invariant", "client capture: %v", err)
		return false
	}
	r.fold, r.foldCaptured = lane.NewClientFold(c), c.StreamingMessage != nil
	return true
}

// checkClientFold: once every stream of a healthy lane has delivered its
// message_end, a client folding pi's reduceLaneSnapshot shows no streaming
// message. (Its operation is not checked: an external finalization may have
// committed and not yet emitted run_end.)
func (r *runner) checkClientFold(where string) bool {
	f := r.fold
	if f == nil || r.foldCaptured || r.openMessages != 0 || r.ln.Fault() != nil || r.closing || r.closed {
		return true
	}
	return r.check(f.StreamingMessage == nil, "invariant", "%s: the client fold keeps a streaming message after its stream ended:\n%s", where, marshalMsg(f.StreamingMessage))
}
