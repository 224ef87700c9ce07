package lanesim

import (
	"errors"

	"github.com/frameproof/frameproof/impl/lane"
	"github.com/frameproof/frameproof/sim/campaign"
	"github.com/frameproof/frameproof/sim/choice"
	"github.com/frameproof/frameproof/sim/world"
)

func (r *runner) canceller() {
	if r.p.thresholdOver > 0 && choice.Chance(r.w, "cancel-at-threshold-read", 1, 2) {
		r.cancelAim.await(r, choice.Chance(r.w, "cancel-after-threshold-read", 1, 2))
	} else {
		r.pauseSpread("cancel", 100)
	}
	if r.finished || r.failed || r.closing {
		return
	}
	r.requestCancel()
}

// requestCancel cancels the current operation as a client does, and checks
// what the cancel request fixes.
func (r *runner) requestCancel() {
	ln := r.ln
	// RequestCancel refuses a faulted lane before its abort begins (pi's
	// requestOperationAbort asserts the harness open first); no scheduling
	// point lies between this check and that one
	if ln.Fault() == nil {
		r.ls.beginAbort()
	}
	if err := ln.RequestCancel(); err != nil && !errors.Is(err, world.ErrCrashed) && !errors.Is(err, lane.ErrClosed) {
		var hf *lane.HarnessFault
		if errors.As(err, &hf) {
			return // the driver reports or restarts faults
		}
		r.fail(campaign.KindInvariant, "request cancel: %v", err)
		return
	}
	if _, st := r.refOp(); st != nil && st.Control.CancelRequested {
		r.noteStartLeaf(st, "cancelled-at-")
	}
	r.checkCancelAbortsStream()
}

// checkCancelAbortsStream: once a cancel request has committed, the live
// provider stream of the cancelled response has its abort signal fired
// (pi's requestOperationAbort aborts the running request), so the provider
// stops instead of streaming the rest of the response.
func (r *runner) checkCancelAbortsStream() {
	s := r.cur
	if s == nil || s.ended || s.gen != r.gen || s.req.Abort == nil || !r.alive() {
		return
	}
	op, st := r.refOp()
	if st == nil || op != s.req.OperationID || !st.Control.CancelRequested || st.ResponseEntryID != s.req.ResponseEntryID {
		return
	}
	r.check(s.req.Abort.Done(), campaign.KindInvariant, "cancel of %s committed while response %s streams, but its abort signal did not fire", op, s.req.ResponseEntryID)
}
