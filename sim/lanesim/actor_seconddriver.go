package lanesim

import (
	"fmt"

	"github.com/frameproof/frameproof/impl/lane"
	ml "github.com/frameproof/frameproof/model/lane"
	"github.com/frameproof/frameproof/sim/campaign"
	"github.com/frameproof/frameproof/sim/trace"
)

// secondDriver is a second caller of Step on the lane process while the
// driver steps. pi's Lane.drive (runtime/lane.ts) claims Lane.activeDrive;
// a claim finding the active drive observes it: the call runs no procedure
// and returns the active drive's outcome. The model states the same
// (ObserveDrive); lockstep then shows the observer caused no commit, request
// or event, and this actor compares the outcome it got.
func (r *runner) secondDriver() {
	gen := r.gen
	for i := 0; i < 4 && !r.finished && !r.failed; i++ {
		r.pause("second-drive", 80)
		ls := r.ls
		// a step whose outcome the model took at its commit (ls.early) has
		// no step left to observe in the model, though the lane's is still
		// returning: skip that window
		if r.gen != gen || r.closing || r.finished || r.failed || !ls.stepping || ls.early != nil {
			continue
		}
		if ls.mismatch("observe drive", ls.m.ObserveDrive()) {
			return
		}
		res, err := r.ln.Step(lane.StepOptions{WaitForRetry: true})
		if r.gen != gen || r.closing || err != nil {
			return // the observed step failed with its process: the driver handles it
		}
		want, ok, merr := ls.m.ObservedDone()
		if ls.mismatch("observed drive done", merr) {
			return
		}
		got := ml.Outcome{Kind: res.Kind.String(), Reason: res.Reason, Status: res.Status}
		r.w.Note("observed-drive", trace.F("outcome", got.Kind))
		err = observedOutcomeMismatch(got, want, ok)
		if !r.check(err == nil, campaign.KindModelMismatch, "%v", err) {
			return
		}
	}
}

// observedOutcomeMismatch is nil when the second driver got the outcome of
// the step it observed; ok is false when the model had no observed step
// ending.
func observedOutcomeMismatch(got, want ml.Outcome, ok bool) error {
	if ok && got == want {
		return nil
	}
	return fmt.Errorf("second driver returned %+v, the observed step %+v (ok=%t)", got, want, ok)
}
