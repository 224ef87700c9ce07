package lanesim

import (
	"github.com/frameproof/frameproof/impl/store"
	"github.com/frameproof/frameproof/sim/campaign"
)

// Transaction comparison: content read back after a commit cannot tell
// "tip before usage row" from pi's order, so each acknowledged transaction's
// writes are compared one by one, in order, with the write list model/lane
// states for it (ml.Model.TakeTX), and its seqs with the store's rule.

// compareTX compares the writes of the transaction the model input just fed
// stands for. Every input that stands for a commit states its write list, so
// a commit without one is a disagreement too.
func (ls *lockstep) compareTX(where string, ws []store.Write) bool {
	return ls.compareTXAt(func() string { return where }, ws)
}

// compareTXAt is compareTX naming where only for a failure (a frame's
// commit names its frame, formatted only then).
func (ls *lockstep) compareTXAt(where func() string, ws []store.Write) bool {
	want, known := ls.m.TakeTX()
	if !known {
		ls.r.fail(campaign.KindModelMismatch, "%s: the model states no transaction for the commit %s", where(), describeWrites(ws))
		return false
	}
	ls.r.checks++
	ls.txCompared++
	if err := ls.reader.CompareTX(ws, want); err != nil {
		return !ls.mismatch(where(), err)
	}
	return true
}
