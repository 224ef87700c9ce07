package lanesim

import (
	"errors"

	"github.com/frameproof/frameproof/impl/lane"
	"github.com/frameproof/frameproof/sim/campaign"
)

func (r *runner) closer() {
	r.pauseSpread("close", 120)
	if r.finished || r.failed || r.closing {
		return
	}
	ln := r.ln
	if cur := ln.Current(); cur != nil && cur.State.At.IsEffectPending() {
		r.race(RowCloseSettle, OrderCloseFirst)
	} else {
		r.race(RowCloseSettle, OrderSettleFirst)
	}
	r.closing, r.closed = true, true
	r.fault("close " + r.proc.String())
	before := r.ref.NextSeq()
	if err := ln.Close(); err != nil && !errors.Is(err, lane.ErrClosed) {
		r.fail(campaign.KindInvariant, "close: %v", err)
		return
	}
	// Close writes nothing of its own: only admitted work may have drained.
	if _, st := r.refOp(); st != nil && st.At.IsEffectPending() {
		r.check(!r.settledSince(before), campaign.KindInvariant, "close committed a settlement")
	}
	r.linz.crash("close of " + r.proc.String())
	r.proc.Crash()
	r.startProcess()
}

// settledSince reports whether an assistant entry committed at or after seq.
func (r *runner) settledSince(seq int64) bool {
	es, _ := r.ref.Entries()
	for _, e := range es {
		if e.Seq >= seq && r.memo.isAssistantEntry(e.Entry.Raw) {
			return true
		}
	}
	return false
}
