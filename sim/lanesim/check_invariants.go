package lanesim

import (
	"slices"

	"github.com/frameproof/frameproof/impl/lane"
	"github.com/frameproof/frameproof/impl/store"
	"github.com/frameproof/frameproof/sim/campaign"
	"github.com/frameproof/frameproof/sim/invariants"
)

// Invariant numbers refer to the seed's list (assistant-durability.md).
// The seed's twelve invariants are sim/invariants' checkers, run over the
// acknowledged committed state (the reference store), the run's event and
// frame log (live processes only) and, where one was taken, a snapshot or
// the operation a fresh process restored.

// invariantChecker runs invariants.Check; it owns the event and frame log,
// the operations acknowledged commits touched and the decoded-entry cache.
type invariantChecker struct {
	r   *runner
	log []invariants.LogItem
	// ops are the operations acknowledged commits touched, sorted, without
	// repeats (kept sorted as they arrive: every check reads them in order)
	ops []string
	// views remembers decoded committed entries across checks.
	views invariants.ViewReader
	// scan checks the invariants that read the log over the items logged
	// since the last check only (the log only grows)
	scan invariants.LogScan
	// events and frames hold the items the log points to, logSlab of
	// them per allocation (a chunk is never grown, so pointers into it
	// stay valid)
	events []lane.Event
	frames []lane.FrameRecord
}

// logSlab is how many events or frame records one allocation holds at
// most; a run's first chunk holds firstSlab and each next one twice the
// last, so that a short run does not clear a full slab (an event is
// ≈600 bytes).
const (
	logSlab   = 64
	firstSlab = 8
)

// nextSlab is the capacity of the chunk after one of capacity c (0: none
// yet).
func nextSlab(c int) int {
	if c == 0 {
		return firstSlab
	}
	return min(2*c, logSlab)
}

func newInvariantChecker(r *runner) *invariantChecker {
	return &invariantChecker{r: r}
}

// commit checks the invariants after every acknowledged commit.
func (c *invariantChecker) commit(e commitEvent) bool {
	c.noteOps(e.ws)
	c.check("after commit", nil, nil)
	return true
}

// laneEvent and frame append to the invariants' log.
func (c *invariantChecker) laneEvent(ev lane.Event) {
	if len(c.events) == cap(c.events) {
		c.events = make([]lane.Event, 0, nextSlab(cap(c.events)))
	}
	c.events = append(c.events, ev)
	c.log = append(c.log, invariants.LogItem{Event: &c.events[len(c.events)-1]})
}

func (c *invariantChecker) frame(fr lane.FrameRecord) {
	if len(c.frames) == cap(c.frames) {
		c.frames = make([]lane.FrameRecord, 0, nextSlab(cap(c.frames)))
	}
	c.frames = append(c.frames, fr)
	c.log = append(c.log, invariants.LogItem{Frame: &c.frames[len(c.frames)-1]})
}

// reopened checks the invariants on a reopened lane, with the operation it
// restored.
func (c *invariantChecker) reopened(ln *lane.Lane, snap *lane.Snapshot) bool {
	return c.check("reopened lane", snap, ln.Current())
}

// noteOps remembers every operation an acknowledged commit touched.
func (c *invariantChecker) noteOps(ws []store.Write) {
	for _, w := range ws {
		if w.Kind == store.WriteValue && (w.Namespace == lane.NSOpState || w.Namespace == lane.NSOpMeta) {
			if i, found := slices.BinarySearch(c.ops, w.Key); !found {
				c.ops = slices.Insert(c.ops, i, w.Key)
			}
		}
	}
}

// check runs invariants.Check; snap and restored may be nil.
func (c *invariantChecker) check(where string, snap *lane.Snapshot, restored *lane.Operation) bool {
	r := c.r
	if r.failed {
		return false
	}
	r.checks++
	v, err := c.views.Read(r.ref, c.ops, r.reference.lists.sortedFrameKeys())
	if err != nil {
		r.fail(campaign.KindInvariant, "%s: read the committed state: %v", where, err)
		return false
	}
	v.Log, v.Snapshot, v.Restored, v.Structural = c.log, snap, restored, r.structural.pairs
	if err := c.scan.Check(v); err != nil {
		r.fail(campaign.KindInvariant, "%s: %v", where, err)
		return false
	}
	return true
}
