package lanesim

import "github.com/frameproof/frameproof/sim/campaign"

func (r *runner) reader() {
	for i := 0; i < r.p.snapshots && !r.finished && !r.failed; i++ {
		r.pause("snapshot", 60)
		if !r.closing && !r.finished {
			r.snapshotNow("reader")
		}
	}
}

// snapshotNow takes a snapshot of the current lane and checks it.
func (r *runner) snapshotNow(who string) {
	ln := r.ln
	snap, err := ln.Snapshot()
	if err != nil {
		// a snapshot beside an applied, unacknowledged commit waits for
		// it, and the process may die meanwhile (a refusal a capture gets)
		if !r.captureRefused(ln, err) {
			r.fail(campaign.KindInvariant, "snapshot (%s): %v", who, err)
		}
		return
	}
	r.emitSnapshot(ln, snap, who)
}
