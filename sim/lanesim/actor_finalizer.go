package lanesim

import (
	"errors"

	"github.com/frameproof/frameproof/impl/lane"
	"github.com/frameproof/frameproof/sim/choice"
	"github.com/frameproof/frameproof/sim/world"
)

// finalizerMessage marks the external finalizer's terminal records.
const finalizerMessage = "finalized by the simulator"

// finalizerActor is the external finalizer (frameproof's external
// finalization of the current operation); it owns the set of operations it
// finalized, which the frame and intent checks read.
type finalizerActor struct {
	r         *runner
	finalized map[string]bool
}

func (a *finalizerActor) run() {
	r := a.r
	r.pause("finalize", 80)
	if choice.Chance(r.w, "finalize-after-commit", 1, 2) {
		a.awaitCommittedFrame()
	} else if choice.Chance(r.w, "finalize-in-wait", 1, 2) {
		r.awaitWaitingStep()
	}
	ln := r.ln
	if r.finished || r.failed || r.closing || ln.Current() == nil {
		return
	}
	op := ln.Current().ID
	oe := &lane.OpError{Code: "external", Message: finalizerMessage}
	if choice.Chance(r.w, "finalize-refused", 1, 4) {
		a.refusedFinalize(ln, oe)
		if r.finished || r.failed || r.closing || r.ln != ln || ln.Current() == nil || ln.Current().ID != op {
			return
		}
	}
	id := r.linz.call("finalizer", linzInput{Kind: "finalize", Op: op})
	r.ls.issueFinalize("failed", oe)
	fut := ln.FinalizeAsync("failed", oe)
	err := fut.Wait()
	switch {
	case err == nil:
		a.finalized[op] = true
		for _, t := range r.tracks[r.currentResp(op)] {
			if t.outcome == lane.FrameCommitted {
				r.race(RowAppendFinalize, OrderAppendFirst)
				break
			}
		}
		r.linz.ret(id, linzOutput{Result: "ok"})
	case errors.Is(err, lane.ErrNoOperation):
		r.linz.ret(id, linzOutput{Result: "none"})
	case errors.Is(err, world.ErrCrashed) || errors.Is(err, lane.ErrClosed):
		r.linz.cut(id, err.Error())
	default:
		var hf *lane.HarnessFault
		if errors.As(err, &hf) && r.injected {
			r.linz.cut(id, err.Error())
			return
		}
		r.fail("invariant", "finalize: %v", err)
	}
}

// refusedFinalize passes an error with a status other than failed, which
// pi's operationResultRecord (runtime/drive/terminal.ts) refuses: nothing
// commits, whatever the lane's state at its turn.
func (a *finalizerActor) refusedFinalize(ln *lane.Lane, oe *lane.OpError) {
	r := a.r
	r.ls.issueFinalize("aborted", oe)
	err := ln.FinalizeAsync("aborted", oe).Wait()
	switch {
	case errors.Is(err, lane.ErrResultError), errors.Is(err, world.ErrCrashed), errors.Is(err, lane.ErrClosed):
	default:
		var hf *lane.HarnessFault
		if errors.As(err, &hf) && r.injected {
			return
		}
		r.fail("invariant", "finalize aborted with an error: want %q, got %v", lane.ErrResultError, err)
	}
}

// awaitCommittedFrame pauses, a bounded number of times, until the current
// response has a committed frame: the finalizer then races the appends that
// follow it (the append-first order of RowAppendFinalize), which an
// unconditioned pause reaches only when the stream is slow.
func (a *finalizerActor) awaitCommittedFrame() {
	r := a.r
	for i := 0; i < 20 && !r.finished && !r.failed; i++ {
		if ln := r.ln; ln != nil && ln.Current() != nil {
			for _, t := range r.tracks[r.currentResp(ln.Current().ID)] {
				if t.outcome == lane.FrameCommitted {
					return
				}
			}
		}
		r.pause("finalize-wait", 5)
	}
}

// currentResp is the response id of op's last effect_pending in this run.
func (r *runner) currentResp(op string) string {
	if r.cur != nil && r.cur.req.OperationID == op {
		return r.cur.req.ResponseEntryID
	}
	return ""
}
