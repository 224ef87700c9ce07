package lanesim

import (
	"errors"

	"github.com/frameproof/frameproof/impl/lane"
	"github.com/frameproof/frameproof/sim/campaign"
	"github.com/frameproof/frameproof/sim/world"
)

// checkRestored runs on a reopened lane (invariant 1 is checked by
// sim/invariants with View.Restored, the rest by the lockstep model):
// race bookkeeping, fork/migration checks and reconnecting clients.
func (r *runner) checkRestored() {
	_, st := r.refOp()
	r.check(r.ln.Current() != nil || st == nil, campaign.KindRecovery, "restored lane is idle while the committed state has an operation")
	r.noteStartLeaf(st, "restored-at-")
	r.poller.pending = ""
	if st != nil && st.At == lane.LeafAssistantEffectPending {
		r.races.restoredPending(st.ResponseEntryID)
	} else {
		r.races.restoredPending("")
	}
	if st != nil && st.At == lane.LeafDeferredEffectPending {
		r.poller.pending = st.ResponseEntryID
	}
	if st != nil && st.At.IsEffectPending() {
		r.emitRestored(st)
		// a reconnecting client may look before activation gets to run
		if r.p.snapshots > 0 && boolChoice(r, "reconnect-snapshot") {
			r.snapshotNow("reconnect")
		}
		if r.p.canceller && boolChoice(r, "reconnect-cancel") {
			var hf *lane.HarnessFault
			r.ls.beginAbort()
			// a closer may have closed the lane meanwhile (as the canceller
			// actor allows)
			if err := r.ln.RequestCancel(); err != nil && !(errors.As(err, &hf) && r.injected) && !errors.Is(err, world.ErrCrashed) && !errors.Is(err, lane.ErrClosed) {
				r.fail(campaign.KindInvariant, "request cancel on reconnect: %v", err)
			}
		}
	}
}
