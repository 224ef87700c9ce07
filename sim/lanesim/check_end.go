package lanesim

import "github.com/frameproof/frameproof/sim/campaign"

// finalChecks: recovery liveness (every operation settled), the invariants
// over the whole run (12: no frame list left), and a power loss after the run recovers exactly the
// acknowledged state.
func (r *runner) finalChecks() {
	if r.failed {
		return
	}
	if err := r.ref.rowsAreSpec(); err != nil {
		r.fail(campaign.KindStore, "%v", err)
		return
	}
	if !r.ls.viewAgrees() {
		return
	}
	op, st := r.refOp()
	r.check(op == "" && st == nil, campaign.KindLiveness, "run ended with operation %s unsettled", describe(op, st))
	r.check(r.resultsCount() >= r.p.ops, campaign.KindLiveness, "%d of %d operations settled", r.resultsCount(), r.p.ops)
	// the last invariants check reads its incremental parts in full too,
	// and scans the whole log as well as the items since the last check
	r.inv.views.VerifyParts, r.inv.scan.VerifyFull = true, true
	if !r.inv.check("end of run", nil, nil) {
		return
	}
	// a crasher or closer may be mid-restart (its new process still
	// opening): let it finish, so the close below closes a live lane
	for r.closing && !r.failed {
		r.w.Yield()
	}
	if r.failed {
		return
	}
	// power loss after a clean close, then recovery
	r.closing, r.closed = true, true
	if err := r.ln.Close(); err != nil {
		r.fail(campaign.KindInvariant, "final close: %v", err)
		return
	}
	r.proc.Crash()
	r.fault("final " + r.be.crash())
	if !r.startProcess() {
		return
	}
	r.emitEnd()
	r.closing = true
	_ = r.ln.Close()
	r.proc.Crash()
}
