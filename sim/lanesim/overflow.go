package lanesim

import (
	"github.com/frameproof/frameproof/impl/lane"
	"github.com/frameproof/frameproof/impl/pi"
	"github.com/frameproof/frameproof/impl/store"
)

// Overflow settlements: the provider's error texts include a context
// overflow, so runs settle overflows into summary.deciding with a
// compaction preparation (pi.op.preparation) in the settlement TX. The
// lockstep model states the preparation's place and value, the compared
// state carries it, and the driver finalizes the waiting operation, whose
// terminal TX must delete it.

// overflowMutant breaks the preparation writes on their way to storage
// (tests only, to show the simulator rejects each):
//   - "drop": the settlement TX loses its pi.op.preparation write;
//   - "reorder": the preparation's keys come out in another order;
//   - "count": nothing changes (overflowSettlements still counts).
var overflowMutant string

// overflowSettlements counts the acknowledged commits that moved an
// operation to summary.deciding while overflowMutant was set.
var overflowSettlements int

// countOverflowSettlement counts an acknowledged commit that sets an op
// state at summary.deciding for an overflow.
func countOverflowSettlement(ws []store.Write) {
	if overflowTX(ws) {
		overflowSettlements++
	}
}

// overflowTX says whether a commit sets an op state at summary.deciding
// with an overflow task (a threshold compaction's is threshold.go's).
func overflowTX(ws []store.Write) bool {
	for _, w := range ws {
		if w.Kind == store.WriteValue && w.Namespace == lane.NSOpState && w.Op == store.OpSet {
			if st, err := lane.DecodeState(w.Value); err == nil && st.At == lane.LeafSummaryDeciding {
				return st.Task.Prop("reason").Str() == "overflow"
			}
		}
	}
	return false
}

// mutateOverflow applies overflowMutant to an overflow settlement's writes.
func mutateOverflow(ws []store.Write) []store.Write {
	if !overflowTX(ws) {
		return ws
	}
	out := make([]store.Write, 0, len(ws))
	for _, w := range ws {
		if w.Kind != store.WriteValue || w.Namespace != lane.NSPreparation || w.Op != store.OpSet {
			out = append(out, w)
			continue
		}
		switch overflowMutant {
		case "drop":
			continue
		case "reorder":
			w.Value = reversedKeys(w.Value)
		}
		out = append(out, w)
	}
	return out
}

// reversedKeys is raw with its top-level keys in reverse order.
func reversedKeys(raw []byte) []byte {
	v, err := pi.ParseJSON(string(raw))
	if err != nil || v.Kind() != pi.Object {
		return raw
	}
	keys := v.ObjectValue().Keys()
	o := pi.NewObject()
	for i := len(keys) - 1; i >= 0; i-- {
		f, _ := v.ObjectValue().Get(keys[i])
		o.Set(keys[i], f)
	}
	return pi.ObjectValue(o).AppendJSON(nil)
}
