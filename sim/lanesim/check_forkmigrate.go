package lanesim

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/frameproof/frameproof/impl/lane"
	"github.com/frameproof/frameproof/impl/store"
)

// checkForkMigrate (on a restored effect_pending lane): an idle-fork image
// copies no frame list or operation-owned value (I12), and a frame
// migration either maps every element keeping its seq or drops whole lists
// without touching operation state.
// forkMigrateChecker runs on fork/migration profiles, on every restored
// effect_pending lane and at the end.
type forkMigrateChecker struct{ r *runner }

func (c *forkMigrateChecker) restored(*lane.OpState) {
	if c.r.p.forkMigrate {
		c.check()
	}
}

func (c *forkMigrateChecker) end() {
	if c.r.p.forkMigrate {
		c.check()
	}
}

func (c *forkMigrateChecker) check() {
	r := c.r
	ws, _, err := lane.ForkWrites(r.st, lane.ForkOptions{UnconfiguredLanes: true})
	if !r.check(err == nil, "invariant", "fork: %v", err) {
		return
	}
	for _, w := range ws {
		// session/fork.ts: the lane state is rebuilt empty
		if w.Namespace == lane.NSLaneState && !r.check(string(w.Value) == `{"currentOperationId":null,"lastOperationId":null,"inbox":[]}`,
			"invariant", "idle fork copies lane state %s", w.Value) {
			return
		}
		if !r.check(w.Kind != store.WriteList && !strings.HasPrefix(w.Namespace, "pi.pending.") && !strings.HasPrefix(w.Namespace, "pi.op."),
			"invariant", "I12: idle fork copies %s %s/%s", w.Kind, w.Namespace, w.Key) {
			return
		}
	}
	var image []store.CommittedWrite
	lists := map[string]int{}
	for _, ns := range laneNamespaces {
		vs, _ := r.ref.ScanValues(ns, "")
		for _, v := range vs {
			image = append(image, store.CommittedWrite{Write: store.SetValueRaw(v.Address, v.Value), Seq: v.Seq})
		}
	}
	for _, k := range r.sortedListKeys() {
		a := r.listKeys[k]
		els, _ := r.ref.ReadList(a, store.ReadOptions{Limit: 10_000})
		for _, e := range els {
			image = append(image, store.CommittedWrite{Write: store.AppendListRaw(a, e.Value), Seq: e.Seq})
		}
		if len(els) > 0 && a.Namespace == lane.NSAssistantFrame { // other lists (storeinputs.go) are kept
			lists[a.Key] = len(els)
		}
	}
	out, dropped, err := lane.MigrateFrames(image, func(raw json.RawMessage) (json.RawMessage, bool) { return raw, true })
	if !r.check(err == nil && len(dropped) == 0 && len(out) == len(image), "invariant", "identity migration changed the image: %v, dropped %v", err, dropped) {
		return
	}
	for i := range out {
		if !r.check(out[i].Seq == image[i].Seq && bytes.Equal(out[i].Value, image[i].Value), "invariant", "identity migration changed element %d", i) {
			return
		}
	}
	out, dropped, err = lane.MigrateFrames(image, nil)
	if !r.check(err == nil && len(dropped) == len(lists), "invariant", "discarding migration dropped %v of %v: %v", dropped, lists, err) {
		return
	}
	for _, w := range out {
		if !r.check(w.Kind != store.WriteList || w.Namespace != lane.NSAssistantFrame, "invariant", "discarding migration kept a frame of %s", w.Key) {
			return
		}
	}
	r.check(len(out) == len(image)-sum(lists), "invariant", "discarding migration touched non-frame records")
	r.race("fork-migration", "checked")
}

func sum(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}
