package lanesim

import (
	"bytes"
	"fmt"
	"slices"

	"github.com/frameproof/frameproof/impl/lane"
	"github.com/frameproof/frameproof/impl/store"
	"github.com/frameproof/frameproof/sim/campaign"
)

// laneNamespaces are the value namespaces compared between backend and
// reference.
var laneNamespaces = []string{lane.NSBranchTip, lane.NSLaneState, lane.NSResult, lane.NSOpMeta, lane.NSOpState}

// reconcileStore runs after every (re)open: an unacknowledged commit in
// flight at the crash may or may not have survived (the backend's next seq
// says which); then the backend must equal the reference exactly.
func (r *runner) reconcileStore() bool {
	survived := false
	if ws := r.reference.inflight; ws != nil {
		r.reference.inflight = nil
		if r.st.NextSeq() > r.ref.NextSeq() {
			survived = true
			r.fault("unacknowledged commit survived")
			prevOp, prevState := r.refOp()
			if _, err := r.ref.Commit(ws); err != nil {
				r.fail(campaign.KindStore, "a surviving in-flight commit does not apply: %v", err)
				return false
			}
			r.reference.lists.note(ws)
			r.inv.noteOps(ws)
			r.races.noteCommit(ws, prevOp, prevState)
			r.linz.commitOps(ws)
		}
	}
	if msg := r.reference.diffStores(r.st.Storage, r.ref); msg != "" {
		r.fail(campaign.KindStore, "after opening process %d the backend differs from the acknowledged commits: %s", r.gen, msg)
		return false
	}
	if r.gen > 1 && !r.ls.restart(survived) {
		return false
	}
	return true
}

// diffStores compares everything observable in the lane's namespaces.
func (c *referenceChecker) diffStores(got, want store.Storage) string {
	r := c.r
	r.checks++
	if g, w := got.NextSeq(), want.NextSeq(); g != w {
		return fmt.Sprintf("nextSeq %d, want %d", g, w)
	}
	ge, err1 := got.Entries()
	we, err2 := want.Entries()
	if err1 != nil || err2 != nil {
		return fmt.Sprintf("entries: %v %v", err1, err2)
	}
	if len(ge) != len(we) {
		return fmt.Sprintf("%d entries, want %d", len(ge), len(we))
	}
	for i := range ge {
		if ge[i].Seq != we[i].Seq || ge[i].Entry.ID != we[i].Entry.ID || !bytes.Equal(ge[i].Entry.Raw, we[i].Entry.Raw) {
			return fmt.Sprintf("entry %d: %s@%d, want %s@%d", i, ge[i].Entry.ID, ge[i].Seq, we[i].Entry.ID, we[i].Seq)
		}
	}
	gu, err1 := got.Usage()
	wu, err2 := want.Usage()
	if err1 != nil || err2 != nil {
		return fmt.Sprintf("usage: %v %v", err1, err2)
	}
	if len(gu) != len(wu) {
		return fmt.Sprintf("%d usage rows, want %d", len(gu), len(wu))
	}
	for i := range gu {
		if gu[i].Seq != wu[i].Seq || gu[i].Row.ID != wu[i].Row.ID || !bytes.Equal(gu[i].Row.Raw, wu[i].Row.Raw) {
			return fmt.Sprintf("usage %d: %s@%d, want %s@%d", i, gu[i].Row.ID, gu[i].Seq, wu[i].Row.ID, wu[i].Seq)
		}
	}
	for _, ns := range append(laneNamespaces[:len(laneNamespaces):len(laneNamespaces)], r.foreignNS...) {
		gv, err1 := got.ScanValues(ns, "")
		wv, err2 := want.ScanValues(ns, "")
		if err1 != nil || err2 != nil {
			return fmt.Sprintf("%s: %v %v", ns, err1, err2)
		}
		if len(gv) != len(wv) {
			return fmt.Sprintf("%s: %d values, want %d", ns, len(gv), len(wv))
		}
		for i := range gv {
			if gv[i].Address.Key != wv[i].Address.Key || gv[i].Seq != wv[i].Seq || !bytes.Equal(gv[i].Value, wv[i].Value) {
				return fmt.Sprintf("%s/%s@%d differs from %s@%d", ns, gv[i].Address.Key, gv[i].Seq, wv[i].Address.Key, wv[i].Seq)
			}
		}
	}
	for _, k := range c.lists.sortedKeys() {
		a := c.lists.addrs[k]
		gl, err1 := got.ReadList(a, store.ReadOptions{Limit: 10_000})
		wl, err2 := want.ReadList(a, store.ReadOptions{Limit: 10_000})
		if err1 != nil || err2 != nil {
			return fmt.Sprintf("list %s: %v %v", a.Key, err1, err2)
		}
		if len(gl) != len(wl) {
			return fmt.Sprintf("list %s: %d elements, want %d", a.Key, len(gl), len(wl))
		}
		for i := range gl {
			if gl[i].Seq != wl[i].Seq || !bytes.Equal(gl[i].Value, wl[i].Value) {
				return fmt.Sprintf("list %s element %d: seq %d, want %d", a.Key, i, gl[i].Seq, wl[i].Seq)
			}
		}
	}
	return ""
}

// listIndex is every list the reference's acknowledged commits wrote to
// (note), by physical key, with its keys kept sorted as they arrive rather
// than sorted at every check: addrs only grows.
type listIndex struct {
	addrs map[string]store.Address
	// order is addrs' keys in sorted order, and frameKeys the keys of its
	// assistant-frame lists in that order
	order, frameKeys []string
}

// sortedKeys is addrs' keys in sorted order: read only, and valid until
// the next note.
func (x *listIndex) sortedKeys() []string { return x.order[:len(x.order):len(x.order)] }

// sortedFrameKeys is the keys of the assistant-frame lists of addrs in
// sortedKeys' order (within one namespace, the order of the keys): read
// only, and valid until the next note.
func (x *listIndex) sortedFrameKeys() []string {
	return x.frameKeys[:len(x.frameKeys):len(x.frameKeys)]
}

// referenceChecker applies every acknowledged commit to the reference (the
// store oracle, model/store) first, so that every later subscriber reads
// the state the commit made, and checks that the backend numbered it as the
// reference does. At a reopen (reconcileStore) the backend must equal the
// reference. It owns the index of the reference's lists and the commit in
// flight, which reconcileStore applies to the reference if it survived.
type referenceChecker struct {
	r     *runner
	lists listIndex
	// inflight is a commit submitted to the backend and not acknowledged
	// (simStore.Commit sets and clears it)
	inflight []store.Write
}

func (c *referenceChecker) commit(e commitEvent) bool {
	r := c.r
	want, err := r.ref.Commit(e.ws)
	if err != nil {
		r.fail(campaign.KindStore, "the reference rejects an acknowledged commit: %v", err)
		return false
	}
	// slices.Equal is fmt.Sprint's equality here ([]int64, nil and empty
	// alike) without formatting both at every commit; r.check's arguments
	// are boxed only for a failure
	if !slices.Equal(want.Seqs, e.res.Seqs) {
		return r.check(false, campaign.KindStore, "acknowledged seqs %v, reference %v", e.res.Seqs, want.Seqs)
	}
	r.checks++
	c.lists.note(e.ws)
	return true
}

// note remembers every list a commit the reference took wrote to,
// keeping sortedKeys and sortedFrameKeys sorted as keys arrive rather
// than sorting at every check.
func (x *listIndex) note(ws []store.Write) {
	for _, w := range ws {
		if w.Kind != store.WriteList {
			continue
		}
		pk := store.PhysicalKey(w.Namespace, w.Key)
		if _, ok := x.addrs[pk]; ok {
			continue
		}
		if x.addrs == nil {
			x.addrs = map[string]store.Address{}
		}
		x.addrs[pk] = store.Address{Namespace: w.Namespace, Key: w.Key, Kind: store.KindList}
		x.order = insertSorted(x.order, pk)
		if w.Namespace == lane.NSAssistantFrame {
			x.frameKeys = insertSorted(x.frameKeys, w.Key)
		}
	}
}

// insertSorted adds k to the sorted set s (a no-op when s holds it).
func insertSorted(s []string, k string) []string {
	if i, found := slices.BinarySearch(s, k); !found {
		s = slices.Insert(s, i, k)
	}
	return s
}
