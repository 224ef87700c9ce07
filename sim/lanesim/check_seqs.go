package lanesim

import (
	"github.com/frameproof/frameproof/impl/lane"
	"github.com/frameproof/frameproof/impl/store"
)

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
