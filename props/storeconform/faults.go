package storeconform

import (
	"errors"

	"github.com/frameproof/frameproof/impl/store"
	mstore "github.com/frameproof/frameproof/model/store"
	"github.com/frameproof/frameproof/props/crash"
)

// storageFaults runs faultCase once per fault the server offers, each on
// a fresh server.
func storageFaults(c *caseRun) {
	for i, f := range c.hello.Faults {
		faultCase(c, f, uint64(10+i))
	}
}

// faultCase commits part of a workload, arms fault, commits until a
// commit fails for it (F), then:
//   - the live store shows exactly the acknowledged commits (F refused
//     shows nothing);
//   - the next valid commit (G) is refused (the store stopped writing) or
//     acknowledged with the seqs it would have without F, and then F must
//     stay absent;
//   - after SIGKILL the restarted store opens and holds every
//     acknowledged commit, with F whole or not at all when G was refused.
func faultCase(c *caseRun, fault string, tag uint64) {
	r := c.dial()
	// at least a dozen commits, so some valid one follows the arming and
	// another the faulted one (about one in ten breaks a rule)
	work := crash.NewGen(c.opts.Seed*7919 + tag).Workload(max(c.opts.KillCommits, 12))
	var acked [][]mstore.Write
	o := crash.NewOracle()
	i := c.commitAll(r, o, work[:len(work)/2], &acked, fault+": before the fault")
	if err := r.Fault(fault); err != nil {
		c.tb.Fatalf("%s: arming the fault: %v", fault, err)
	}
	var faulted []mstore.Write
	for ; i < len(work) && faulted == nil; i++ {
		ws := work[i]
		if len(ws) == 0 {
			continue // writes nothing: cannot meet the fault
		}
		res, err := r.Commit(crash.ToStore(ws))
		switch {
		case isTransport(err):
			c.tb.Fatalf("%s: commit %d: %v", fault, i+1, err)
		case err == nil:
			c.tb.Fatalf("%s: commit %d was acknowledged (first seq %d) though the armed fault should have failed its write", fault, i+1, res.FirstSeq)
		case o.Rejected(ws, err) == nil:
			// a rule's refusal, before any write: the fault stays armed
		default:
			faulted = ws
		}
	}
	if faulted == nil {
		c.tb.Fatalf("%s: no commit of the workload met the armed fault", fault)
	}
	if err := o.CheckVisible(c.readLive(r, fault)); err != nil {
		c.tb.Fatalf("%s: after the faulted commit (%d writes) was refused: %v", fault, len(faulted), err)
	}
	after := replay(acked)
	gAcked := c.commitAfterFault(r, after, work[i:], fault)
	if !gAcked {
		after = replay(acked)
		after.Indefinite(faulted)
	}
	if err := r.Kill(); err != nil {
		c.tb.Fatalf("%s: the store does not restart after the fault: %v", fault, err)
	}
	c.check(r, after, fault+": after SIGKILL and restart")
}

// commitAll commits ws in order into o, returning how many it sent.
func (c *caseRun) commitAll(r *Remote, o *crash.Oracle, work [][]mstore.Write, acked *[][]mstore.Write, where string) int {
	for i, ws := range work {
		res, err := r.Commit(crash.ToStore(ws))
		switch {
		case isTransport(err):
			c.tb.Fatalf("%s: commit %d: %v", where, i+1, err)
		case err != nil:
			if rerr := o.Rejected(ws, err); rerr != nil {
				c.tb.Fatalf("%s: commit %d: %v", where, i+1, rerr)
			}
		default:
			if aerr := o.Acked(ws, res); aerr != nil {
				c.tb.Fatalf("%s: commit %d: %v", where, i+1, aerr)
			}
			*acked = append(*acked, ws)
		}
	}
	return len(work)
}

// commitAfterFault sends the workload's next valid commits after the
// faulted one until one is acknowledged (it must then hold in o, which
// lacks the faulted commit) or refused for something other than a rule
// (the store stopped writing). It reports whether one was acknowledged.
func (c *caseRun) commitAfterFault(r *Remote, o *crash.Oracle, work [][]mstore.Write, fault string) bool {
	for _, ws := range work {
		if len(ws) == 0 {
			continue
		}
		res, err := r.Commit(crash.ToStore(ws))
		switch {
		case isTransport(err):
			c.tb.Fatalf("%s: the commit after the faulted one: %v", fault, err)
		case err == nil:
			if aerr := o.Acked(ws, res); aerr != nil {
				c.tb.Fatalf("%s: the commit after the faulted one was acknowledged as if the faulted one had landed: %v", fault, aerr)
			}
			return true
		case o.Rejected(ws, err) != nil:
			return false // refused for the earlier fault
		}
	}
	return false
}

// readLive reads the live store's rows; its next seq is not asked
// (CheckVisible ignores it), since commit([]) may be refused now.
func (c *caseRun) readLive(r *Remote, fault string) mstore.Snapshot {
	got, err := crash.ReadSnapshot(seqBlind{r})
	if err != nil {
		c.tb.Fatalf("%s: reading the store after the fault: %v", fault, err)
	}
	return got
}

// seqBlind reads a Remote without asking its next seq.
type seqBlind struct{ *Remote }

func (seqBlind) NextSeq() int64 { return 0 }

// replay is an oracle holding exactly these commits.
func replay(acked [][]mstore.Write) *crash.Oracle {
	o := crash.NewOracle()
	for _, ws := range acked {
		o.Assume(ws)
	}
	return o
}

func isTransport(err error) bool {
	var te *TransportError
	return errors.As(err, &te)
}

var _ store.Storage = seqBlind{}
