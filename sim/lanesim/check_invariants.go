package lanesim

import (
	"sort"

	"github.com/frameproof/frameproof/impl/lane"
	"github.com/frameproof/frameproof/impl/store"
	"github.com/frameproof/frameproof/sim/invariants"
)

// Invariant numbers refer to the seed's list (assistant-durability.md).
// The seed's twelve invariants are sim/invariants' checkers, run over the
// acknowledged committed state (the reference store), the run's event and
// frame log (live processes only) and, where one was taken, a snapshot or
// the operation a fresh process restored.

// logEvent and logFrame append to the invariants' log.
func (r *runner) logEvent(ev lane.Event) {
	r.invLog = append(r.invLog, invariants.LogItem{Event: &ev})
}

func (r *runner) logFrame(fr lane.FrameRecord) {
	r.invLog = append(r.invLog, invariants.LogItem{Frame: &fr})
}

// noteOps remembers every operation an acknowledged commit touched.
func (r *runner) noteOps(ws []store.Write) {
	for _, w := range ws {
		if w.Kind == store.WriteValue && (w.Namespace == lane.NSOpState || w.Namespace == lane.NSOpMeta) {
			r.opIDs[w.Key] = true
		}
	}
}

// checkInvariants runs invariants.Check; snap and restored may be nil.
func (r *runner) checkInvariants(where string, snap *lane.Snapshot, restored *lane.Operation) bool {
	if r.failed {
		return false
	}
	r.checks++
	ops := make([]string, 0, len(r.opIDs))
	for op := range r.opIDs {
		ops = append(ops, op)
	}
	sort.Strings(ops)
	var keys []string
	for _, k := range r.sortedListKeys() {
		if a := r.listKeys[k]; a.Namespace == lane.NSAssistantFrame {
			keys = append(keys, a.Key)
		}
	}
	v, err := r.views.Read(r.ref, ops, keys)
	if err != nil {
		r.fail("invariant", "%s: read the committed state: %v", where, err)
		return false
	}
	v.Log, v.Snapshot, v.Restored, v.Structural = r.invLog, snap, restored, r.structural.pairs
	if err := invariants.Check(v); err != nil {
		r.fail("invariant", "%s: %v", where, err)
		return false
	}
	return true
}
