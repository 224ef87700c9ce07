package lanesim

import (
	"slices"
	"strings"

	"github.com/frameproof/frameproof/impl/env"

	"github.com/frameproof/frameproof/impl/lane"
	"github.com/frameproof/frameproof/impl/store"
	ml "github.com/frameproof/frameproof/model/lane"
)

// Threshold compaction at run boundaries (impl/lane/threshold.go): a swarm
// draw gives the lane and the model one model registry, knowing the
// simulated model with a small context window, so boundaries whose context
// is over it commit pi.op.preparation and move to summary.deciding, where
// the driver finalizes the waiting run as after an overflow. The lockstep
// compares each boundary transaction with the model's, which names the
// task the lane minted (BoundaryTask) and states the op state's task.

// rowThreshold records what the runs' threshold questions answered: a
// compaction at a need_assistant ("compacted:checkpoint") or a may_finish
// boundary ("compacted:finish"), or a read that found the run cancelled
// or gone (thresholdDeclined).
const (
	rowThreshold            = "threshold-compaction"
	orderThresholdCancelled = "read-cancelled"
	orderThresholdLost      = "read-lost"
	// orderBoundaryCancelled+":"+command: the read found the run running
	// and the boundary's commit (checkpoint or finish) a cancel committed
	// in between (runCheckpoint's planning continueOperation declines it)
	orderBoundaryCancelled = "boundary-cancelled"
)

// thresholdDeclined names why a threshold read found its checkpoint moved
// on: the reference's current operation is cancelled, or gone.
func (r *runner) thresholdDeclined() string {
	if _, st := r.refOp(); st != nil && st.Control.CancelRequested {
		return orderThresholdCancelled
	}
	return orderThresholdLost
}

// contextWindows is the model's registry for the profile (nil: none).
func (p profile) contextWindows() map[ml.ModelRef]float64 {
	if !p.registry() {
		return nil
	}
	return map[ml.ModelRef]float64{{Provider: simProvider, ModelID: simModel}: p.window()}
}

// registry: the profile gives the lane a model registry (a threshold, or a
// run whose model it lacks).
func (p profile) registry() bool { return p.thresholdOver > 0 || p.unavailable == unavailableModel }

// window is the registry's context window: thresholdOver-1 tokens over the
// runs' reserveTokens, so a context of thresholdOver tokens compacts;
// without a threshold, one no simulated context reaches.
func (p profile) window() float64 {
	if p.thresholdOver <= 0 {
		return 1e15
	}
	return simCompaction.ReserveTokens + float64(p.thresholdOver-1)
}

// models is the lane's registry for the profile (nil: none).
func (r *runner) models() lane.Models {
	if !r.p.registry() {
		return nil
	}
	window := r.p.window()
	return func(m lane.ModelRef) (float64, bool) {
		return window, m == lane.ModelRef{Provider: simProvider, ModelID: simModel}
	}
}

// thresholdTask is the summary task a boundary's writes name in their
// pi.op.preparation key ("" when the boundary did not compact), and
// records the compaction at the boundary command name in rowThreshold.
func (ls *lockstep) thresholdTask(name lane.Command, ws []store.Write) string {
	for _, w := range ws {
		if w.Kind == store.WriteValue && w.Namespace == lane.NSPreparation && w.Op == store.OpSet {
			_, task, _ := strings.Cut(w.Key, ":")
			ls.r.race(rowThreshold, "compacted:"+string(name))
			return task
		}
	}
	return ""
}

// cancelAim puts a cancellation where only a threshold read meets it:
// between a checkpoint step's dispatch and its read's turn. The canceller
// parks (await) until the driver, done with a step that left the run at a
// checkpoint, admitted its capture (beforeCapture); the cancel then queues
// behind the capture, and its commit waits (holdCommit) until the driver's
// next step is dispatched and has admitted its read behind it. Aimed after
// the read instead (afterRead), the canceller parks until a threshold read
// of a may_finish boundary is admitted (readAdmitted), so its cancel may
// queue between the read and the finish, which must then decline.
type cancelAim struct {
	aim       env.Completer
	hold      bool
	afterRead bool
}

func (a *cancelAim) await(r *runner, afterRead bool) {
	a.aim, a.hold, a.afterRead = r.w.NewFuture("cancel-aim"), !afterRead, afterRead
	_ = a.aim.Wait()
}

// beforeCapture wakes the parked canceller at a running checkpoint.
func (a *cancelAim) beforeCapture(ln *lane.Lane) {
	if a.aim == nil || a.afterRead {
		return // nothing to release: spare every capture the op's copy
	}
	if cur := ln.Current(); cur != nil && cur.State.At == lane.LeafCheckpoint && !cur.State.Control.CancelRequested {
		a.release()
	}
}

// readAdmitted wakes a canceller aimed after the threshold read of a
// may_finish boundary, whose finish is the command that must decline (a
// need_assistant boundary's read comes first in every run).
func (a *cancelAim) readAdmitted(ln *lane.Lane) {
	if a.aim == nil || !a.afterRead {
		return
	}
	if cur := ln.Current(); cur != nil && cur.State.Continuation.Kind == lane.ContinueMayFinish {
		a.release()
	}
}

func (a *cancelAim) release() {
	if a.aim != nil {
		a.aim.Resolve(nil)
		a.aim = nil
	}
}

// holdCommit is the aimed cancel's commit latency: a bounded number of
// scheduling points, until the driver is inside its next step.
func (a *cancelAim) holdCommit(r *runner, ws []store.Write) {
	if !a.hold || a.aim != nil || !slices.ContainsFunc(ws, cancelWrite) {
		return
	}
	a.hold = false
	for i := 0; i < 50 && !r.ls.stepping && !r.finished && !r.failed; i++ {
		r.w.Yield()
	}
}

// cancelWrite says whether w sets an op state at cancel_requested.
func cancelWrite(w store.Write) bool {
	if w.Kind != store.WriteValue || w.Namespace != lane.NSOpState || w.Op != store.OpSet {
		return false
	}
	st, err := lane.DecodeState(w.Value)
	return err == nil && st.Control.CancelRequested
}
