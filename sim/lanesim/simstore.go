package lanesim

import (
	"errors"

	"github.com/frameproof/frameproof/impl/store"
	"github.com/frameproof/frameproof/sim/campaign"
	"github.com/frameproof/frameproof/sim/choice"
)

var errDeadProcess = errors.New("lanesim: commit from a crashed process")

// alive reports whether the running actor's process is alive (callbacks
// from a dead process's unwinding code are ignored).
func (r *runner) alive() bool {
	p := r.w.CurrentProcess()
	return p == nil || p.Alive()
}

// simStore is the lane's storage: every commit takes a scheduling point
// first (commit latency: a crash may fall before it), may fail with an
// injected storage error, and once acknowledged is applied to the reference
// and checked.
type simStore struct {
	store.Storage
	r   *runner
	gen int
}

// GetEntries and ScanBranch pass the store's queries on, so that a
// campaign runs the lane's indexed reads (snapshots, the compaction
// preparation, entry lookups) and not their read-every-entry fallback.
func (s *simStore) GetEntries(ids []string) (store.EntryList, error) {
	return store.GetEntriesOf(s.Storage, ids)
}

func (s *simStore) ScanBranch(q store.BranchScan) (store.EntryList, error) {
	return store.ScanBranchOf(s.Storage, q)
}

func (s *simStore) Commit(ws []store.Write) (store.CommitResult, error) {
	r := s.r
	if overflowMutant != "" {
		ws = mutateOverflow(ws)
	}
	if !r.alive() {
		// The world unwinds a crashed process's actors, and nothing in impl/
		// recovers panics, so a dead process never gets here; if it did, its
		// commit would land after the crash.
		_, dead := r.w.Current()
		r.fail(campaign.KindWorld, "commit from crashed process %s: %v", dead, ws)
		return store.CommitResult{}, errDeadProcess
	}
	// a write at a structural address is invariant 11's business (checked
	// at its acknowledgement), not something the lockstep model stands for
	model := !r.structural.writes(ws)
	if model {
		r.ls.commitPlanned()
	}
	r.finalizer.holdCommit(ws)
	r.cancelAim.holdCommit(r, ws)
	if r.p.commitLatency {
		for n := choice.Weighted(r.w, "commit-latency", []int{3, 2, 1}); n > 0; n-- {
			r.w.Yield()
		}
	}
	if r.p.storageFaults > 0 && !r.faultPending && len(r.faults) < 8 && choice.Chance(r.w, "storage-fault", 1, r.p.storageFaults) {
		r.faultPending, r.injected = true, true
		r.fault("storage commit failure")
		if !r.be.injectFault() {
			return store.CommitResult{}, errors.New("lanesim: injected storage failure: EIO")
		}
	}
	if model {
		r.ls.beforeCommit(ws)
	}
	r.reference.inflight = ws
	res, err := s.Storage.Commit(ws)
	if err != nil {
		// a failed JSONL commit may still reach the disk: stays in flight
		return res, err
	}
	r.reference.inflight = nil
	if overflowMutant != "" {
		countOverflowSettlement(ws)
	}
	r.acked(ws, res)
	if model {
		r.ls.afterAck(ws, res)
	}
	return res, nil
}

// acked is the commit event point: every commit checker (checkers.go)
// sees the acknowledged commit, the reference first.
func (r *runner) acked(ws []store.Write, res store.CommitResult) {
	prevOp, prevState := r.refOp()
	r.emitCommit(commitEvent{ws: ws, res: res, prevOp: prevOp, prev: prevState})
	r.capture.noteCut()
	r.ls.noteCapture()
}
