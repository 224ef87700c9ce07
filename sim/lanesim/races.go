package lanesim

import (
	"github.com/frameproof/frameproof/impl/lane"
	"github.com/frameproof/frameproof/impl/pi"
	"github.com/frameproof/frameproof/impl/store"
	"github.com/frameproof/frameproof/sim/campaign"
	"github.com/frameproof/frameproof/sim/trace"
)

// race records that row took order in this run.
func (r *runner) race(row, order string) {
	for _, o := range r.raceOrders[row] {
		if o == order {
			return
		}
	}
	r.raceOrders[row] = append(r.raceOrders[row], order)
	r.w.Note("race", trace.S("row", row), trace.S("order", order))
}

// noteCrashRaces records rows 5 and 6 at a crash.
func (r *runner) noteCrashRaces() {
	r.noteCrashStaged()
	s := r.cur
	if s == nil {
		return
	}
	resp := s.req.ResponseEntryID
	queued := false
	for _, t := range r.tracks[resp] {
		if t.gen == r.gen && t.outcome == lane.FrameEnqueued {
			queued = true
		}
	}
	if len(r.tracks[resp]) > 0 {
		if queued {
			r.race(RowQueuedLoss, OrderQueuedLost)
		} else {
			r.race(RowQueuedLoss, OrderQueueEmpty)
		}
	}
	if s.ended && !queued && len(r.tracks[resp]) > 0 {
		if _, st := r.refOp(); st != nil && st.At.IsEffectPending() && st.ResponseEntryID == resp {
			r.race(RowFinalFrame, OrderCrashBetween)
		}
	}
}

// raceNotes subscribes the race bookkeeping of commits (noteCommit) to the
// commit event, between the store checks and the invariants. It owns the
// activation-vs-snapshot row's pending response.
type raceNotes struct {
	r *runner
	// pendingActivation is the effect_pending response the last restart
	// restored, until its activation settles it or a snapshot shows it
	// first (restoredPending, snapshotShows)
	pendingActivation string
}

func (n *raceNotes) commit(e commitEvent) bool {
	n.noteCommit(e.ws, e.prevOp, e.prev)
	return true
}

// restoredPending notes the assistant effect_pending response a reopened
// lane restored ("" for none): its activation now races snapshots.
func (n *raceNotes) restoredPending(resp string) { n.pendingActivation = resp }

// snapshotShows records the snapshot-first order when a snapshot shows the
// committed prefix of resp before its restored activation settled it.
func (n *raceNotes) snapshotShows(resp string) {
	if n.pendingActivation == resp {
		n.r.race(RowActivationSnap, OrderSnapshotFirst)
	}
}

// noteCommit runs on every acknowledged commit, with the reference's
// current operation before the commit: race bookkeeping and the porcupine
// history of settlements. What a settlement must write (reserved ids, zero
// synthetic usage, cancellation wins, the frame list deleted, no tool plan
// from an interrupted response) is checked by the lockstep model and
// sim/invariants.
func (n *raceNotes) noteCommit(ws []store.Write, prevOp string, prev *lane.OpState) {
	r := n.r
	r.noteStagedCommit(ws)
	for _, w := range ws {
		if w.Kind != store.WriteEntry || w.Entry == nil {
			continue
		}
		m := r.memo.entryMessage(w.Entry.Raw)
		if m == nil {
			continue // not an assistant entry
		}
		if m.StopReason == pi.StopPending {
			// session/session.ts refuses it; the lane must fault instead
			r.fail(campaign.KindInvariant, "a pending assistant message was committed as entry %s", w.Entry.ID)
		}
		if prev == nil || !prev.At.IsEffectPending() {
			continue // the model reports a settlement without a pending response
		}
		id := w.Entry.ID
		var next *lane.OpState
		for _, w := range ws {
			if w.Kind == store.WriteValue && w.Op == store.OpSet && w.Namespace == lane.NSOpState {
				next, _ = r.memo.decodeState(w.Value)
			}
		}
		if r.synthetic(id) {
			if !prev.Control.CancelRequested && prev.At == lane.LeafAssistantEffectPending {
				if next != nil && next.At == lane.LeafAssistantRetryWait {
					r.race(RowUnknownRetry, OrderSyntheticThenRetry)
				} else if next == nil {
					r.race(RowUnknownRetry, OrderSyntheticThenFailAtCap)
				}
			}
			if n.pendingActivation == id {
				r.race(RowActivationSnap, OrderActivationFirst)
				n.pendingActivation = ""
			}
		} else {
			if s := r.streams[id]; s != nil {
				s.settled = true
			}
			if len(r.tracks[id]) > 0 {
				r.race(RowFinalFrame, OrderSettledInProcess)
			}
		}
		r.linz.settled(prevOp, id)
	}
}

// synthetic reports whether response id settles without a live stream this
// process finished (recovery or cancellation reconciliation).
func (r *runner) synthetic(id string) bool {
	s := r.streams[id]
	return !(s != nil && s.ended && r.cur == s)
}
