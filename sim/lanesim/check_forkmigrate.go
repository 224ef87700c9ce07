package lanesim

import (
	"bytes"
	"encoding/json"
	"slices"
	"sort"
	"strings"

	"github.com/frameproof/frameproof/impl/lane"
	"github.com/frameproof/frameproof/impl/store"
	"github.com/frameproof/frameproof/sim/campaign"
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
	ws, _, err := lane.ForkWrites(r.st, lane.ForkOptions{ExtraNamespaces: appNamespaces})
	if !r.check(err == nil, campaign.KindInvariant, "fork: %v", err) || !c.checkForkCopies(ws) {
		return
	}
	if d := r.p.reach.branchFork; d != nil {
		c.checkBranchFork(d)
	}
	for _, w := range ws {
		// session/fork.ts: the lane state is rebuilt empty
		if w.Namespace == lane.NSLaneState && !r.check(string(w.Value) == `{"currentOperationId":null,"lastOperationId":null,"inbox":[]}`,
			campaign.KindInvariant, "idle fork copies lane state %s", w.Value) {
			return
		}
		if !r.check(w.Kind != store.WriteList && !strings.HasPrefix(w.Namespace, "pi.pending.") && !strings.HasPrefix(w.Namespace, "pi.op."),
			campaign.KindInvariant, "I12: idle fork copies %s %s/%s", w.Kind, w.Namespace, w.Key) {
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
	for _, k := range r.reference.lists.sortedKeys() {
		a := r.reference.lists.addrs[k]
		els, _ := r.ref.ReadList(a, store.ReadOptions{Limit: 10_000})
		for _, e := range els {
			image = append(image, store.CommittedWrite{Write: store.AppendListRaw(a, e.Value), Seq: e.Seq})
		}
		if len(els) > 0 && a.Namespace == lane.NSAssistantFrame { // other lists (storeinputs.go) are kept
			lists[a.Key] = len(els)
		}
	}
	out, dropped, err := lane.MigrateFrames(image, func(raw json.RawMessage) (json.RawMessage, bool) { return raw, true })
	if !r.check(err == nil && len(dropped) == 0 && len(out) == len(image), campaign.KindInvariant, "identity migration changed the image: %v, dropped %v", err, dropped) {
		return
	}
	for i := range out {
		if !r.check(out[i].Seq == image[i].Seq && bytes.Equal(out[i].Value, image[i].Value), campaign.KindInvariant, "identity migration changed element %d", i) {
			return
		}
	}
	out, dropped, err = lane.MigrateFrames(image, nil)
	if !r.check(err == nil && len(dropped) == len(lists), campaign.KindInvariant, "discarding migration dropped %v of %v: %v", dropped, lists, err) {
		return
	}
	for _, w := range out {
		if !r.check(w.Kind != store.WriteList || w.Namespace != lane.NSAssistantFrame, campaign.KindInvariant, "discarding migration kept a frame of %s", w.Key) {
			return
		}
	}
	r.check(len(out) == len(image)-sum(lists), campaign.KindInvariant, "discarding migration touched non-frame records")
	r.race("fork-migration", "checked")
}

func sum(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

// appValues are the application values a fork-migration run's store starts
// with, one transaction in this order: their seqs interleave the
// namespaces (not the order a per-namespace scan returns them in), so a
// fork that copies them grouped by namespace rather than in commit order
// differs. The label names no entry of the session: a tree fork drops it.
var appValues = []store.Write{
	store.SetValueRaw(store.Address{Namespace: "app.z", Key: "b"}, []byte(`{"note":"second key"}`)),
	store.SetValueRaw(store.Address{Namespace: lane.NSSessionName, Key: ""}, []byte(`"simulated session"`)),
	store.SetValueRaw(store.Address{Namespace: lane.NSEntryLabel, Key: "no-such-entry"}, []byte(`"dropped"`)),
	store.SetValueRaw(store.Address{Namespace: "app.a", Key: "a"}, []byte(`1`)),
	store.SetValueRaw(store.Address{Namespace: "app.z", Key: "a"}, []byte(`[true]`)),
}

// appNamespaces are appValues' application namespaces, the fork's
// ExtraNamespaces (sorted: another order than the seqs').
var appNamespaces = []string{"app.a", "app.z"}

// seedAppValues commits appValues to a fresh store (acknowledged, so the
// store oracle takes them too) before the lane opens it.
func (r *runner) seedAppValues(st store.Storage) bool {
	if _, err := st.Commit(appValues); err != nil {
		r.fail(campaign.KindStore, "committing the application values: %v", err)
		return false
	}
	if _, err := r.ref.Commit(appValues); err != nil {
		r.fail(campaign.KindStore, "the store oracle refuses the application values: %v", err)
		return false
	}
	for _, ns := range append([]string{lane.NSSessionName, lane.NSEntryLabel}, appNamespaces...) {
		if !slices.Contains(r.foreignNS, ns) {
			r.foreignNS = append(r.foreignNS, ns)
		}
	}
	return true
}

// checkForkCopies: after the tips, lane configs and rebuilt lane states, a
// tree fork copies the session name, the labels of copied entries and the
// extra namespaces' values in the order the source committed them, under
// fresh consecutive seqs (session/fork.ts createForkSnapshot walks the
// source's scalar values in order and stores each "copy" one with
// nextSeq++). The expectation is read from the store oracle.
func (c *forkMigrateChecker) checkForkCopies(ws []store.CommittedWrite) bool {
	r := c.r
	entries, _ := r.ref.Entries()
	ids := map[string]bool{}
	for _, e := range entries {
		ids[e.Entry.ID] = true
	}
	var want []store.StoredValue
	for _, ns := range append([]string{lane.NSSessionName, lane.NSEntryLabel}, appNamespaces...) {
		vs, _ := r.ref.ScanValues(ns, "")
		for _, v := range vs {
			if ns != lane.NSEntryLabel || ids[v.Address.Key] {
				want = append(want, v)
			}
		}
	}
	sort.SliceStable(want, func(i, j int) bool { return want[i].Seq < want[j].Seq })
	var got []store.CommittedWrite
	for _, w := range ws {
		switch w.Namespace {
		case lane.NSBranchTip, lane.NSLaneConfig, lane.NSLaneState:
		default:
			if w.Kind == store.WriteValue {
				got = append(got, w)
			}
		}
	}
	if !r.check(len(got) == len(want), campaign.KindInvariant, "fork copies %d application values, want %d", len(got), len(want)) {
		return false
	}
	for i := range got {
		w, v := got[i], want[i]
		if !r.check(w.Namespace == v.Address.Namespace && w.Key == v.Address.Key && bytes.Equal(w.Value, v.Value),
			campaign.KindInvariant, "fork copy %d is %s/%s, want %s/%s (source seq %d): not in the source's commit order",
			i, w.Namespace, w.Key, v.Address.Namespace, v.Address.Key, v.Seq) {
			return false
		}
		if i > 0 && !r.check(w.Seq == got[i-1].Seq+1, campaign.KindInvariant, "fork copy %d has seq %d after %d", i, w.Seq, got[i-1].Seq) {
			return false
		}
	}
	return true
}
