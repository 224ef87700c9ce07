package lanesim

import (
	"errors"
	"slices"

	"github.com/frameproof/frameproof/impl/env"
	"github.com/frameproof/frameproof/impl/lane"
	"github.com/frameproof/frameproof/impl/store"
	"github.com/frameproof/frameproof/sim/campaign"
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
	// aim, while the finalizer awaits a step's start (awaitStepStart),
	// resolves when the driver has admitted its capture after a step that
	// left the operation where the next step re-reads it first.
	aim   env.Completer
	aimAt lane.Leaf // the leaf it aims at
	// hold: the aimed finalization's commit waits for the driver's next
	// dispatch (holdCommit)
	hold bool
}

func (a *finalizerActor) run() {
	r := a.r
	aimed := r.p.lostFaults && choice.Chance(r.w, "finalize-at-step-start", 1, 2)
	switch {
	case aimed:
		a.awaitStepStart()
	default:
		r.pause("finalize", 80)
		if choice.Chance(r.w, "finalize-after-commit", 1, 2) {
			a.awaitCommittedFrame()
		} else if choice.Chance(r.w, "finalize-in-wait", 1, 2) {
			r.awaitWaitingStep()
		}
	}
	ln := r.ln
	if r.finished || r.failed || r.closing || ln.Current() == nil {
		return
	}
	op := ln.Current().ID
	oe := &lane.OpError{Code: "external", Message: finalizerMessage}
	if !aimed && choice.Chance(r.w, "finalize-refused", 1, 4) {
		a.refusedFinalize(ln, oe)
		if r.finished || r.failed || r.closing || r.ln != ln || ln.Current() == nil || ln.Current().ID != op {
			return
		}
	}
	id := r.linz.call("finalizer", linzInput{Kind: "finalize", Op: op})
	r.ls.issueFinalize("failed", oe)
	a.hold = aimed
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
		r.fail(campaign.KindInvariant, "finalize: %v", err)
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
		r.fail(campaign.KindInvariant, "finalize aborted with an error: want %q, got %v", lane.ErrResultError, err)
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

// awaitStepStart parks until the driver, done with a step that left the
// current operation at assistant.ready or deferred.suspended, has admitted
// its capture after that step (beforeCapture); the finalizer then admits
// its finalization behind the capture, and the finalization's commit waits
// (holdCommit) until the driver's next step has been dispatched on that
// leaf and admitted its first command (the intent; the deferred source
// read, permit or not) behind the finalization. With pi's rule
// (lostFaults) that command meets pi's lost-operation fault: an
// unconditioned pause lands in this window about once in a few hundred
// seeds.
func (a *finalizerActor) awaitStepStart() {
	r := a.r
	a.aimAt = lane.LeafAssistantReady
	if r.p.deferred && choice.Bool(r.w, "finalize-at-deferred-read") {
		a.aimAt = lane.LeafDeferredSuspended
	}
	// a boundary's threshold read (threshold.go) is its step's first
	// command when the run has a model registry
	if r.p.thresholdOver > 0 && choice.Bool(r.w, "finalize-at-threshold-read") {
		a.aimAt = lane.LeafCheckpoint
	}
	a.aim = r.w.NewFuture("finalize-aim")
	_ = a.aim.Wait()
}

// holdCommit is the aimed finalization's commit latency: a bounded number
// of scheduling points, until the driver is inside its next step (which
// admits its first command before it waits on anything).
func (a *finalizerActor) holdCommit(ws []store.Write) {
	r := a.r
	if !a.hold || !slices.ContainsFunc(ws, func(w store.Write) bool { return w.Kind == store.WriteValue && w.Namespace == lane.NSResult }) {
		return
	}
	a.hold = false
	for i := 0; i < 50 && !r.ls.stepping && !r.finished && !r.failed; i++ {
		r.w.Yield()
	}
}

// beforeCapture wakes an aiming finalizer when the step the driver just
// finished left the current operation at the leaf it aims at (not
// cancelled). The driver admits its capture
// before the finalizer runs: resolving a future does not yield.
func (a *finalizerActor) beforeCapture(ln *lane.Lane) {
	if a.aim == nil {
		return
	}
	if cur := ln.Current(); cur != nil && !cur.State.Control.CancelRequested && cur.State.At == a.aimAt {
		a.release()
	}
}

// release wakes an aiming finalizer (at its moment, or at the end of the
// run).
func (a *finalizerActor) release() {
	if a.aim != nil {
		a.aim.Resolve(nil)
		a.aim = nil
	}
}
