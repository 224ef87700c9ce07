package lanesim

import (
	"errors"
	"fmt"
	"slices"

	"github.com/frameproof/frameproof/impl/lane"
	ml "github.com/frameproof/frameproof/model/lane"
	"github.com/frameproof/frameproof/sim/campaign"
	"github.com/frameproof/frameproof/sim/lanecmp"
	"github.com/frameproof/frameproof/sim/world"
)

// A capture (pi's captureLaneSnapshot) runs on the lane's mutation line, so
// it waits behind queued commits and its caller resumes only after other
// actors may have committed more. What it must show is the reference at one
// cut between the call and its return: the state before the call or after
// any commit acknowledged meanwhile. Each cut pairs the current operation
// with the reduction of its committed frames, so a capture that pairs one
// commit's operation state with another commit's frames matches none.

// captureCut is what a capture shows at one point of the reference.
type captureCut struct {
	op      string
	pending bool   // assistant/deferred effect_pending
	resp    string // its responseEntryId
	message string // marshalled reduction of its committed frames, or null
	// truncated: the reduction stopped at the frame budget
	truncated bool
}

func (c captureCut) String() string {
	if !c.pending {
		return fmt.Sprintf("operation %q (not effect_pending), no streaming message", c.op)
	}
	return fmt.Sprintf("operation %q effect_pending %s, streaming message %s (frames truncated %t)", c.op, c.resp, c.message, c.truncated)
}

// cutLog collects the cuts of one pending capture.
type cutLog struct{ cuts []captureCut }

// watchCuts starts collecting cuts for a capture about to be called.
func (k *captureChecker) watchCuts() *cutLog {
	l := &cutLog{}
	if c, ok := k.refCut(); ok {
		l.cuts = append(l.cuts, c)
	}
	k.cutLogs = append(k.cutLogs, l)
	return l
}

// unwatchCuts stops collecting for l.
func (k *captureChecker) unwatchCuts(l *cutLog) {
	for i, x := range k.cutLogs {
		if x == l {
			k.cutLogs = append(k.cutLogs[:i], k.cutLogs[i+1:]...)
			return
		}
	}
}

// noteCut records the reference after an acknowledged commit for every
// pending capture.
func (k *captureChecker) noteCut() {
	if len(k.cutLogs) == 0 {
		return
	}
	c, ok := k.refCut()
	if !ok {
		return
	}
	for _, l := range k.cutLogs {
		l.cuts = append(l.cuts, c)
	}
}

// refCut is what a capture shows when taken at the reference's state.
func (k *captureChecker) refCut() (captureCut, bool) {
	r := k.r
	op, st := r.refOp()
	c := captureCut{op: op, message: marshalMsg(nil)}
	if st == nil || !st.At.IsEffectPending() {
		return c, true
	}
	m, truncated, ok := r.prefix.budgetedReduction(op, st.ResponseEntryID, "capture cut")
	if !ok {
		return c, false
	}
	c.pending, c.resp, c.message, c.truncated = true, st.ResponseEntryID, marshalMsg(m), truncated
	return c, true
}

// cutOf is the cut a capture shows.
func cutOf(s *lane.Snapshot) captureCut {
	c := captureCut{op: s.OperationID, message: marshalMsg(s.StreamingMessage)}
	if st := s.State; st != nil && st.At.IsEffectPending() {
		c.pending, c.resp, c.truncated = true, st.ResponseEntryID, s.FramesTruncated
	}
	return c
}

// captureRefused reports whether err is a refusal of ln's capture that pi's
// readLane makes too: ln's process crashed, the simulator closed ln, or an
// injected storage fault faulted it.
func (r *runner) captureRefused(ln *lane.Lane, err error) bool {
	var hf *lane.HarnessFault
	switch {
	case errors.Is(err, world.ErrCrashed):
		return true
	case errors.Is(err, lane.ErrClosed):
		return r.closing || r.closed || ln != r.ln
	case errors.As(err, &hf):
		// pi's lost-operation fault (a swarm draw) may reach a capture
		// queued behind the faulting command before the driver's step
		// returns it; the driver checks that fault against the model
		return (r.injected || r.p.lostFaults && lostFault(err)) && ln.Fault() != nil
	}
	return false
}

// captureFailed handles an error of ln's capture by a client that needs the
// capture to go on (the driver, a restart): a fault restarts the lane like
// any lane error, other refusals end the client quietly.
func (r *runner) captureFailed(ln *lane.Lane, where string, err error) {
	var hf *lane.HarnessFault
	switch {
	case errors.As(err, &hf):
		r.laneError(fmt.Errorf("%s: %w", where, err))
	case !r.captureRefused(ln, err):
		r.fail(campaign.KindInvariant, "%s: %v", where, err)
	}
}

// The lockstep comparison of a capture has the same window: the model is fed
// at every acknowledged commit, frame report and resolved line item, so by the
// time the caller resumes it may describe commits queued behind the capture
// (a finalization the line ran next, a run the reopened lane started). The
// capture must equal the model's capture at one cut between the call and its
// return.

// modelCuts collects the model's captures while one capture waits.
type modelCuts struct{ cuts []ml.Snapshot }

// watchCaptures starts collecting for a capture about to be called.
func (ls *lockstep) watchCaptures() *modelCuts {
	c := &modelCuts{cuts: []ml.Snapshot{ls.m.Capture()}}
	ls.captures = append(ls.captures, c)
	return c
}

// unwatchCaptures stops collecting for c.
func (ls *lockstep) unwatchCaptures(c *modelCuts) {
	for i, x := range ls.captures {
		if x == c {
			ls.captures = append(ls.captures[:i], ls.captures[i+1:]...)
			return
		}
	}
}

// noteCapture records the model's capture for every waiting capture.
func (ls *lockstep) noteCapture() {
	if len(ls.captures) == 0 {
		return
	}
	s := ls.m.Capture()
	for _, c := range ls.captures {
		if !sameCut(c.cuts[len(c.cuts)-1], s) {
			c.cuts = append(c.cuts, s)
		}
	}
}

// sameCut is reflect.DeepEqual of two model captures, field by field: a
// nil transcript is not an empty one (TestSameCutIsDeepEqual).
func sameCut(a, b ml.Snapshot) bool {
	return (a.Transcript == nil) == (b.Transcript == nil) && slices.Equal(a.Transcript, b.Transcript) &&
		a.StreamingMessage == b.StreamingMessage && a.Live == b.Live && a.Truncated == b.Truncated
}

// match reports nil when capture s equals the model at one of the cuts, or
// else the difference from the cut at the call.
// The capture is rendered once (through rd's memo) for every cut: this is
// lanecmp.CompareCaptureAt at each.
func (c *modelCuts) match(rd *lanecmp.Reader, s *lane.Snapshot) error {
	form, ferr := rd.SnapshotForm(s)
	at := func(cut ml.Snapshot) error {
		if ferr != nil {
			return fmt.Errorf("lanecmp: capture: %w", ferr)
		}
		return lanecmp.CompareForms(form, cut, "capture")
	}
	for _, cut := range c.cuts {
		if at(cut) == nil {
			return nil
		}
	}
	err := at(c.cuts[0])
	if len(c.cuts) > 1 {
		err = fmt.Errorf("%w\n(nor the model at any of the %d later cuts before the capture returned)", err, len(c.cuts)-1)
	}
	return err
}
