package lanesim

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"sort"

	"github.com/frameproof/frameproof/impl/lane"
	"github.com/frameproof/frameproof/impl/store"
	"github.com/frameproof/frameproof/impl/store/fork"
	"github.com/frameproof/frameproof/sim/campaign"
)

// rowBranchFork records a branch fork (pi's ForkOptions scope "branch")
// of the lane's branch whose snapshot matched pi's rules: at the tip, at
// an entry behind it, or before an entry (position "before").
const (
	rowBranchFork        = "branch-fork"
	orderForkAtTip       = "at-tip"
	orderForkAtOlder     = "at-older-entry"
	orderForkBeforeEntry = "before-entry"
)

// branchForkDraw is a swarm seed's branch fork (drawReach): the selected
// entry is back entries behind the tip (clamped to the root); before is
// pi's position "before".
type branchForkDraw struct {
	back   int
	before bool
}

// forkSourceNamespaces are the value namespaces a branch fork's source
// holds: the lane's records (operation-owned ones too, which the fork must
// exclude), the session name, labels and the application values (which a
// branch fork must not copy).
func forkSourceNamespaces() []string {
	var out []string
	for _, ns := range slices.Concat(lane.ForkCopiedNamespaces, laneNamespaces, appNamespaces) {
		if !slices.Contains(out, ns) {
			out = append(out, ns)
		}
	}
	return out
}

// checkBranchFork makes the seed's branch fork of the subject's store with
// impl/store/fork and compares it with forkExpectation, pi's rules read
// over the store oracle.
func (c *forkMigrateChecker) checkBranchFork(d *branchForkDraw) {
	r := c.r
	chain := c.tipChain()
	if len(chain) == 0 {
		return // nothing to select
	}
	k := min(d.back, len(chain)-1)
	opts := fork.Options{Scope: fork.ScopeBranch, Branch: laneName, Position: fork.At}
	if d.before {
		opts.Position = fork.Before
	}
	if k > 0 { // at the tip: pi's default entryId (the branch's tip)
		opts.EntryID = &chain[k].Entry.ID
	}
	opts, err := withForkBugs(opts, r.forkBugs)
	if !r.check(err == nil, campaign.KindSetup, "fork bugs: %v", err) {
		return
	}
	src, ok := c.forkSource()
	if !ok {
		return
	}
	labels := chainLabels(src, chain, k)
	src.Values = append(src.Values, labels...)
	snap, err := fork.Create(src, opts)
	if !r.check(err == nil, campaign.KindInvariant, "branch fork %d back (before %t): %v", k, d.before, err) {
		return
	}
	want := c.forkExpectation(chain, k, d.before, labels)
	if !c.sameForkEntries(snap.Entries, want.entries, src.Entries, k, d.before) || !c.sameForkValues(snap.Values, want.values, k, d.before) {
		return
	}
	if !r.check(snap.NextSeq == want.nextSeq, campaign.KindInvariant, "branch fork nextSeq %d, want %d", snap.NextSeq, want.nextSeq) {
		return
	}
	switch {
	case d.before:
		r.race(rowBranchFork, orderForkBeforeEntry)
	case k > 0:
		r.race(rowBranchFork, orderForkAtOlder)
	default:
		r.race(rowBranchFork, orderForkAtTip)
	}
}

// tipChain is the lane branch's ancestry in the store oracle, tip first
// (nil: a null or unknown tip, or a broken chain).
func (c *forkMigrateChecker) tipChain() []store.StoredEntry {
	r := c.r
	tv, _ := r.ref.GetValue(lane.BranchTipAddr(laneName))
	if tv == nil {
		return nil
	}
	var id *string
	if json.Unmarshal(tv.Value, &id) != nil || id == nil {
		return nil
	}
	entries, _ := r.ref.Entries()
	byID := map[string]store.StoredEntry{}
	for _, e := range entries {
		byID[e.Entry.ID] = e
	}
	var chain []store.StoredEntry
	for id != nil {
		e, ok := byID[*id]
		if !ok || len(chain) > len(entries) {
			return nil
		}
		chain = append(chain, e)
		id = e.Entry.ParentID
	}
	return chain
}

// forkSource reads the subject's store as pi's ForkSource: its entries and
// its values in forkSourceNamespaces, in seq order.
func (c *forkMigrateChecker) forkSource() (fork.Source, bool) {
	r := c.r
	entries, err := r.st.Entries()
	if !r.check(err == nil, campaign.KindStore, "fork source entries: %v", err) {
		return fork.Source{}, false
	}
	var values []store.StoredValue
	for _, ns := range forkSourceNamespaces() {
		vs, err := r.st.ScanValues(ns, "")
		if !r.check(err == nil, campaign.KindStore, "fork source %s: %v", ns, err) {
			return fork.Source{}, false
		}
		values = append(values, vs...)
	}
	sort.SliceStable(values, func(i, j int) bool { return values[i].Seq < values[j].Seq })
	return fork.Source{Entries: entries, Values: values}, true
}

// chainLabels are entry labels (pi.entry.label) the fork's source gets
// besides the store's, committed after its last record: on the tip, the
// selected entry and the root, so that a fork keeps some and drops others
// (the lane writes no label).
func chainLabels(src fork.Source, chain []store.StoredEntry, k int) []store.StoredValue {
	var last int64
	for _, e := range src.Entries {
		last = max(last, e.Seq)
	}
	for _, v := range src.Values {
		last = max(last, v.Seq)
	}
	var out []store.StoredValue
	for _, i := range []int{0, k, len(chain) - 1} {
		id := chain[i].Entry.ID
		if slices.ContainsFunc(out, func(v store.StoredValue) bool { return v.Address.Key == id }) {
			continue
		}
		last++
		out = append(out, store.StoredValue{Address: store.Address{Namespace: lane.NSEntryLabel, Key: id, Kind: store.KindValue},
			Value: []byte(fmt.Sprintf(`"label %d"`, i)), Seq: last})
	}
	return out
}

// forkWant is a branch fork's expected snapshot.
type forkWant struct {
	entries []store.StoredEntry
	values  []store.StoredValue
	nextSeq int64
}

// forkExpectation is pi's branch fork of the lane's branch at (or before)
// chain[k], from the store oracle. session/fork.ts selectForkContents
// keeps the selected entry and its ancestors (before: its ancestors only)
// and sets the one branch's tip to it (before: its parent, null before the
// root); createForkSnapshot keeps each entry's seq and timestamp, numbers
// the values from the last kept entry's seq + 1 (1 with none): the tip,
// the lane's configuration and an idle lane state, then in source seq
// order what fork-policy.ts classifyForkAddress copies in scope "branch":
// the session name and the labels of kept entries (the store's and
// extraLabels) — never application values, operation records or results.
func (c *forkMigrateChecker) forkExpectation(chain []store.StoredEntry, k int, before bool, extraLabels []store.StoredValue) forkWant {
	r := c.r
	kept := chain[k:]
	var tip *string = &chain[k].Entry.ID
	if before {
		kept, tip = chain[k+1:], chain[k].Entry.ParentID
	}
	var w forkWant
	keptIDs := map[string]bool{}
	var last int64
	for _, e := range kept {
		w.entries = append(w.entries, e)
		keptIDs[e.Entry.ID] = true
		last = max(last, e.Seq)
	}
	sort.Slice(w.entries, func(i, j int) bool { return w.entries[i].Seq < w.entries[j].Seq })
	next := last + 1
	put := func(a store.Address, v []byte) {
		w.values = append(w.values, store.StoredValue{Address: a, Value: v, Seq: next})
		next++
	}
	tipJSON, _ := json.Marshal(tip)
	put(lane.BranchTipAddr(laneName), tipJSON)
	if cfg, _ := r.ref.GetValue(lane.LaneConfigAddr(laneName)); cfg != nil {
		put(lane.LaneConfigAddr(laneName), cfg.Value)
		put(lane.LaneStateAddr(laneName), []byte(`{"currentOperationId":null,"lastOperationId":null,"inbox":[]}`))
	}
	var copied []store.StoredValue
	names, _ := r.ref.ScanValues(lane.NSSessionName, "")
	labels, _ := r.ref.ScanValues(lane.NSEntryLabel, "")
	labels = append(labels, extraLabels...)
	copied = append(copied, names...)
	for _, l := range labels {
		if keptIDs[l.Address.Key] {
			copied = append(copied, l)
		}
	}
	sort.SliceStable(copied, func(i, j int) bool { return copied[i].Seq < copied[j].Seq })
	for _, v := range copied {
		put(v.Address, v.Value)
	}
	w.nextSeq = next
	return w
}

// sameForkEntries compares a fork's entries with the expectation's: ids
// and seqs, in order, and the timestamps the source stored (the store
// oracle stamps its own commits).
func (c *forkMigrateChecker) sameForkEntries(got, want, source []store.StoredEntry, k int, before bool) bool {
	ids := func(es []store.StoredEntry) []string {
		var out []string
		for _, e := range es {
			out = append(out, e.Entry.ID)
		}
		return out
	}
	if !c.r.check(slices.Equal(ids(got), ids(want)), campaign.KindInvariant,
		"branch fork %d entries back (before %t) keeps %v, pi's selectForkContents keeps %v", k, before, ids(got), ids(want)) {
		return false
	}
	stamps := map[string]int64{}
	for _, e := range source {
		stamps[e.Entry.ID] = e.Timestamp
	}
	for i := range got {
		if !c.r.check(got[i].Seq == want[i].Seq && got[i].Timestamp == stamps[got[i].Entry.ID], campaign.KindInvariant,
			"branch fork entry %s has seq %d at %d, the source's %d at %d", got[i].Entry.ID, got[i].Seq, got[i].Timestamp, want[i].Seq, stamps[got[i].Entry.ID]) {
			return false
		}
	}
	return true
}

// sameForkValues compares a fork's values with the expectation's:
// address, seq and value (the tip as JSON, copies byte for byte).
func (c *forkMigrateChecker) sameForkValues(got, want []store.StoredValue, k int, before bool) bool {
	addrs := func(vs []store.StoredValue) []string {
		var out []string
		for _, v := range vs {
			out = append(out, v.Address.Namespace+"/"+v.Address.Key)
		}
		return out
	}
	if !c.r.check(slices.Equal(addrs(got), addrs(want)), campaign.KindInvariant,
		"branch fork %d entries back (before %t) writes values %v, pi's createForkSnapshot %v", k, before, addrs(got), addrs(want)) {
		return false
	}
	for i := range got {
		g, w := got[i], want[i]
		same := bytes.Equal(g.Value, w.Value)
		if g.Address.Namespace == lane.NSBranchTip {
			same = jsonEqual(g.Value, w.Value)
		}
		if !c.r.check(same && g.Seq == w.Seq, campaign.KindInvariant, "branch fork value %s/%s is %s at seq %d, want %s at %d",
			g.Address.Namespace, g.Address.Key, g.Value, g.Seq, w.Value, w.Seq) {
			return false
		}
	}
	return true
}

// jsonEqual reports whether two JSON texts hold the same value.
func jsonEqual(a, b []byte) bool {
	var x, y any
	return json.Unmarshal(a, &x) == nil && json.Unmarshal(b, &y) == nil && reflect.DeepEqual(x, y)
}

// String prints the draw in a swarm seed's settings ("off": none).
func (d *branchForkDraw) String() string {
	switch {
	case d == nil:
		return "off"
	case d.before:
		return fmt.Sprintf("before-%d-back", d.back)
	}
	return fmt.Sprintf("at-%d-back", d.back)
}
