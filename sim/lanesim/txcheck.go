package lanesim

import (
	"github.com/frameproof/frameproof/impl/lane"
	"github.com/frameproof/frameproof/impl/store"
	"github.com/frameproof/frameproof/sim/lanecmp"
)

// Transaction comparison: content read back after a commit cannot tell
// "tip before usage row" from pi's order, so each acknowledged transaction's
// writes are compared one by one, in order, with the write list model/lane
// states for it (ml.Model.TakeTX), and its seqs with the store's rule.

// compareTX compares the writes of the transaction the model input just fed
// stands for. Every input that stands for a commit states its write list, so
// a commit without one is a disagreement too.
func (ls *lockstep) compareTX(where string, ws []store.Write) bool {
	want, known := ls.m.TakeTX()
	if !known {
		ls.r.fail("model-mismatch", "%s: the model states no transaction for the commit %s", where, describeWrites(ws))
		return false
	}
	ls.r.checks++
	ls.r.txCompared++
	return !ls.mismatch(where, lanecmp.DiffTX(lanecmp.TXWrites(ws), want))
}

// checkSeqs: an acknowledged transaction's write i got FirstSeq+i
// (store.CommitResult), and seqs only grow from one transaction to the
// next (a commit lost with a crash may leave a gap, never a step back).
func (r *runner) checkSeqs(ws []store.Write, res store.CommitResult) bool {
	ok := len(res.Seqs) == len(ws)
	for i := 0; ok && i < len(ws); i++ {
		ok = res.Seqs[i] == res.FirstSeq+int64(i)
	}
	if !r.check(ok, "store", "acknowledged seqs %v (first %d) for %d writes: not consecutive in write order", res.Seqs, res.FirstSeq, len(ws)) {
		return false
	}
	if len(ws) == 0 {
		return true
	}
	if !r.check(res.FirstSeq > r.lastSeq, "store", "acknowledged first seq %d does not follow the previous transaction's last seq %d", res.FirstSeq, r.lastSeq) {
		return false
	}
	r.lastSeq = res.Seqs[len(res.Seqs)-1]
	for i, w := range ws {
		switch {
		case w.Kind == store.WriteEntry && w.Entry != nil:
			r.rowSeq["entry:"+w.Entry.ID] = res.Seqs[i]
		case w.Kind == store.WriteUsage && w.Usage != nil:
			r.rowSeq["usage:"+w.Usage.ID] = res.Seqs[i]
		}
	}
	return true
}

// checkEventSeq: entry_added and usage carry the seq their row's write got
// (runtime/drive/response.ts publishResponse: commit.seqs[0] and [1]), so an
// event emitted before its commit, or naming another write's seq, fails.
func (r *runner) checkEventSeq(ev lane.Event) bool {
	var key string
	switch ev.Type {
	case lane.EvEntryAdded:
		key = "entry:" + ev.EntryID
	case lane.EvUsage:
		key = "usage:" + ev.UsageID
	default:
		return true
	}
	seq, ok := r.rowSeq[key]
	return r.check(ok && seq == ev.Seq, "events", "%s event carries seq %d; its row's acknowledged write got %d (acknowledged: %v)", ev.Type, ev.Seq, seq, ok)
}
