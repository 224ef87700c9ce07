package lanesim

import (
	"github.com/frameproof/frameproof/impl/lane"
	"github.com/frameproof/frameproof/impl/store"
	"github.com/frameproof/frameproof/sim/campaign"
)

// seqChecker checks the seqs of acknowledged commits and of the events
// that name a row's seq; it owns the last acknowledged seq and each row's.
type seqChecker struct {
	r *runner
	// lastSeq is the last acknowledged seq; rowSeq the seq each
	// acknowledged entry and usage row got
	lastSeq int64
	rowSeq  map[rowKey]int64
}

// rowKey names an entry or a usage row (their ids are apart: a struct,
// not a joined string, so that no key is built at every commit and event).
type rowKey struct {
	usage bool
	id    string
}

func newSeqChecker(r *runner) *seqChecker {
	return &seqChecker{r: r, rowSeq: map[rowKey]int64{}}
}

func (c *seqChecker) commit(e commitEvent) bool { return c.checkSeqs(e.ws, e.res) }

// checkSeqs: an acknowledged transaction's write i got FirstSeq+i
// (store.CommitResult), and seqs only grow from one transaction to the
// next (a commit lost with a crash may leave a gap, never a step back).
func (c *seqChecker) checkSeqs(ws []store.Write, res store.CommitResult) bool {
	r := c.r
	ok := len(res.Seqs) == len(ws)
	for i := 0; ok && i < len(ws); i++ {
		ok = res.Seqs[i] == res.FirstSeq+int64(i)
	}
	if !ok {
		return r.check(false, campaign.KindStore, "acknowledged seqs %v (first %d) for %d writes: not consecutive in write order", res.Seqs, res.FirstSeq, len(ws))
	}
	r.pass()
	if len(ws) == 0 {
		return true
	}
	if res.FirstSeq <= c.lastSeq {
		return r.check(false, campaign.KindStore, "acknowledged first seq %d does not follow the previous transaction's last seq %d", res.FirstSeq, c.lastSeq)
	}
	r.pass()
	c.lastSeq = res.Seqs[len(res.Seqs)-1]
	for i, w := range ws {
		switch {
		case w.Kind == store.WriteEntry && w.Entry != nil:
			c.rowSeq[rowKey{id: w.Entry.ID}] = res.Seqs[i]
		case w.Kind == store.WriteUsage && w.Usage != nil:
			c.rowSeq[rowKey{usage: true, id: w.Usage.ID}] = res.Seqs[i]
		}
	}
	return true
}

// checkEventSeq: entry_added and usage carry the seq their row's write got
// (runtime/drive/response.ts publishResponse: commit.seqs[0] and [1]), so an
// event emitted before its commit, or naming another write's seq, fails.
func (c *seqChecker) checkEventSeq(ev lane.Event) bool {
	r := c.r
	var key rowKey
	switch ev.Type {
	case lane.EvEntryAdded:
		key = rowKey{id: ev.EntryID}
	case lane.EvUsage:
		key = rowKey{usage: true, id: ev.UsageID}
	default:
		return true
	}
	seq, ok := c.rowSeq[key]
	if !ok || seq != ev.Seq {
		return r.check(false, campaign.KindEvents, "%s event carries seq %d; its row's acknowledged write got %d (acknowledged: %v)", ev.Type, ev.Seq, seq, ok)
	}
	return r.pass()
}
