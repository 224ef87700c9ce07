// Package crash holds frameproof's crash tests of the store backends: a
// workload generator, the prefix oracle (after a crash the store equals the
// state after some prefix of the commits that includes every acknowledged
// one), in-process crash campaigns on the JSONL backend over faults.FS, a
// porcupine check of concurrent histories against model/store, and
// real-process SIGKILL tests of the JSONL and SQLite backends.
package crash

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/google/go-cmp/cmp"

	"github.com/frameproof/frameproof/impl/store"
	mstore "github.com/frameproof/frameproof/model/store"
	"github.com/frameproof/frameproof/sim/choice"
)

// The address universe of generated workloads: small, so that writes
// collide (overwrites, deletes, fresh lists after delete).
var (
	Namespaces = []string{"a", "pi.pending.assistant_frame"}
	Keys       = []string{"", "k1", "op:r"}
)

// Gen generates commits. Values are unique per write so that a read names
// the write it saw.
type Gen struct {
	r       *choice.Seeded
	tag     string // prefixes ids and values so that generators never collide
	n       int
	entries []string
	usage   []string
}

// NewGen returns a generator seeded with seed.
func NewGen(seed uint64) *Gen {
	return &Gen{r: choice.NewSeeded(seed ^ 0x5eed)}
}

// NewTaggedGen is NewGen whose ids and values carry tag, for concurrent
// submitters.
func NewTaggedGen(seed uint64, tag string) *Gen {
	g := NewGen(seed)
	g.tag = tag
	return g
}

// Commit returns the writes of one commit (0–4 writes, mostly valid; about
// one commit in ten breaks a rule so that rejections are exercised).
func (g *Gen) Commit() []mstore.Write {
	n := g.r.Intn("writes", 5)
	if g.r.Intn("empty commit", 8) == 0 {
		n = 0
	}
	var ws []mstore.Write
	for range n {
		ws = append(ws, g.write())
	}
	return ws
}

func (g *Gen) pick(xs []string) string { return choice.Pick(g.r, "pick", xs) }

func (g *Gen) write() mstore.Write {
	g.n++
	addr := mstore.Addr{Namespace: g.pick(Namespaces), Key: g.pick(Keys)}
	val := `{"w":"` + g.tag + strconv.Itoa(g.n) + `"}`
	switch k := g.r.Intn("write kind", 10); {
	case k < 2:
		id := g.tag + "e" + strconv.Itoa(g.n)
		var parent *string
		switch {
		case g.r.Intn("missing parent", 20) == 0:
			p := "missing" // rejected: Missing parent entry
			parent = &p
		case len(g.entries) > 0 && g.r.Intn("has parent", 4) > 0:
			p := g.pick(g.entries)
			parent = &p
		}
		if len(g.entries) > 0 && g.r.Intn("duplicate id", 25) == 0 {
			id = g.pick(g.entries) // rejected: Duplicate entry or usage id
		}
		g.entries = append(g.entries, id)
		return mstore.Write{Kind: mstore.Entry, ID: id, ParentID: parent}
	case k < 3:
		id := g.tag + "u" + strconv.Itoa(g.n)
		g.usage = append(g.usage, id)
		return mstore.Write{Kind: mstore.Usage, ID: id}
	case k < 5:
		return mstore.Write{Kind: mstore.Value, Op: mstore.Set, Addr: addr, Value: val}
	case k < 6:
		return mstore.Write{Kind: mstore.Value, Op: mstore.Delete, Addr: addr}
	case k < 9:
		return mstore.Write{Kind: mstore.List, Op: mstore.Append, Addr: addr, Value: val}
	default:
		return mstore.Write{Kind: mstore.List, Op: mstore.Delete, Addr: addr}
	}
}

// Workload returns n commits.
func (g *Gen) Workload(n int) [][]mstore.Write {
	out := make([][]mstore.Write, n)
	for i := range out {
		out[i] = g.Commit()
	}
	return out
}

// ToStore converts model writes to store writes (entries and usage rows get
// a small pi-shaped raw object).
func ToStore(ws []mstore.Write) []store.Write {
	out := make([]store.Write, len(ws))
	for i, w := range ws {
		switch w.Kind {
		case mstore.Entry:
			parent := "null"
			if w.ParentID != nil {
				parent = strconv.Quote(*w.ParentID)
			}
			raw := `{"type":"message","id":` + strconv.Quote(w.ID) + `,"parentId":` + parent + `,"message":{"role":"user","content":"x"}}`
			out[i] = store.InsertEntry(store.Entry{ID: w.ID, ParentID: w.ParentID, Raw: json.RawMessage(raw)})
		case mstore.Usage:
			raw := `{"id":` + strconv.Quote(w.ID) + `,"usage":{"input":1,"cost":{"total":0}},"adjustment":false}`
			out[i] = store.InsertUsage(store.UsageRow{ID: w.ID, Raw: json.RawMessage(raw)})
		default:
			a := store.Address{Namespace: w.Addr.Namespace, Key: w.Addr.Key}
			switch {
			case w.Kind == mstore.Value && w.Op == mstore.Set:
				out[i] = store.SetValueRaw(a, json.RawMessage(w.Value))
			case w.Kind == mstore.Value:
				out[i] = store.DeleteValueRaw(a)
			case w.Op == mstore.Append:
				out[i] = store.AppendListRaw(a, json.RawMessage(w.Value))
			default:
				out[i] = store.DeleteListRaw(a)
			}
		}
	}
	return out
}

// IsRejection reports whether err is one of pi's definite commit
// rejections (nothing was written); any other commit error leaves the
// outcome open.
func IsRejection(err error) bool {
	var seq *store.SeqError
	var dup *store.DuplicateIDError
	var parent *store.MissingParentError
	return errors.As(err, &seq) || errors.As(err, &dup) || errors.As(err, &parent)
}

// ReadSnapshot reads a backend's whole observable state (over the address
// universe) in model form. Timestamps are dropped: they are not part of
// what a crash may lose.
func ReadSnapshot(s store.Storage) (mstore.Snapshot, error) {
	snap := mstore.Snapshot{NextSeq: s.NextSeq()}
	entries, err := s.Entries()
	if err != nil {
		return snap, err
	}
	for _, e := range entries {
		snap.Entries = append(snap.Entries, mstore.Row{ID: e.Entry.ID, ParentID: e.Entry.ParentID, Seq: e.Seq})
	}
	usage, err := s.Usage()
	if err != nil {
		return snap, err
	}
	for _, u := range usage {
		snap.Usage = append(snap.Usage, mstore.Row{ID: u.Row.ID, Seq: u.Seq})
	}
	for _, ns := range Namespaces {
		vals, err := s.ScanValues(ns, "")
		if err != nil {
			return snap, err
		}
		for _, v := range vals {
			snap.Values = append(snap.Values, mstore.AddrValue{
				Addr:   mstore.Addr{Namespace: ns, Key: v.Address.Key},
				Stored: mstore.Stored{Value: string(v.Value), Seq: v.Seq},
			})
		}
	}
	for _, ns := range Namespaces {
		for _, key := range Keys {
			elems, err := s.ReadList(store.Address{Namespace: ns, Key: key, Kind: store.KindList}, store.ReadOptions{Limit: 10000})
			if err != nil {
				return snap, err
			}
			if len(elems) == 0 {
				continue
			}
			l := mstore.AddrList{Addr: mstore.Addr{Namespace: ns, Key: key}}
			for _, e := range elems {
				l.Elems = append(l.Elems, mstore.Stored{Value: string(e.Value), Seq: e.Seq})
			}
			snap.Lists = append(snap.Lists, l)
		}
	}
	return snap, nil
}

// ModelSnapshot is spec's snapshot with timestamps dropped, comparable with
// ReadSnapshot.
func ModelSnapshot(spec *mstore.Spec) mstore.Snapshot {
	snap := spec.Snapshot()
	for i := range snap.Entries {
		snap.Entries[i].Timestamp = 0
	}
	return snap
}

// Oracle tracks the states a store may legally recover to.
type Oracle struct {
	spec   *mstore.Spec
	states []mstore.Snapshot // states[i]: after the i-th applied commit
	acked  int               // states[acked] includes every acknowledged commit
	// open: a commit with an open outcome was attempted after the last
	// acknowledged one; states beyond acked are allowed only up to it.
	open int
}

// NewOracle starts from the empty store.
func NewOracle() *Oracle {
	spec := mstore.New()
	return &Oracle{spec: spec, states: []mstore.Snapshot{ModelSnapshot(spec)}}
}

// Acked records an acknowledged commit and checks that the backend's
// answer equals the model's.
func (o *Oracle) Acked(ws []mstore.Write, res store.CommitResult) error {
	want, err := o.spec.Commit(ws, 0)
	if err != nil {
		return fmt.Errorf("backend acknowledged a commit the model rejects (%v): %v", err, describe(ws))
	}
	if want.FirstSeq != res.FirstSeq || !cmp.Equal(want.Seqs, append([]int64{}, res.Seqs...)) {
		return fmt.Errorf("seqs: model %v first %d, backend %v first %d", want.Seqs, want.FirstSeq, res.Seqs, res.FirstSeq)
	}
	if len(ws) > 0 {
		o.states = append(o.states, ModelSnapshot(o.spec))
	}
	o.acked = len(o.states) - 1
	o.open = o.acked
	return nil
}

// Assume records a commit known to be durable (replayed history), without
// a backend result to compare.
func (o *Oracle) Assume(ws []mstore.Write) {
	if _, err := o.spec.Commit(ws, 0); err != nil || len(ws) == 0 {
		return
	}
	o.states = append(o.states, ModelSnapshot(o.spec))
	o.acked = len(o.states) - 1
	o.open = o.acked
}

// Rejected records a definite rejection and checks the model agrees.
func (o *Oracle) Rejected(ws []mstore.Write, got error) error {
	_, err := o.spec.Clone().Commit(ws, 0)
	if err == nil || err.Error() != got.Error() {
		return fmt.Errorf("backend rejected with %q, model says %v: %v", got, err, describe(ws))
	}
	return nil
}

// Indefinite records a commit whose outcome is open (interrupted by a
// crash or an I/O error). Later indefinite commits may also have landed.
func (o *Oracle) Indefinite(ws []mstore.Write) {
	if _, err := o.spec.Commit(ws, 0); err != nil || len(ws) == 0 {
		return // it would be rejected or is empty: it cannot change state
	}
	o.states = append(o.states, ModelSnapshot(o.spec))
	o.open = len(o.states) - 1
}

// Unsynced records a commit acknowledged without durability (sync never):
// it counts as open, so recovery may keep any prefix.
func (o *Oracle) Unsynced(ws []mstore.Write, res store.CommitResult) error {
	acked := o.acked
	if err := o.Acked(ws, res); err != nil {
		return err
	}
	o.acked = acked
	return nil
}

// Check returns which allowed state got equals (acked ≤ k ≤ open), or an
// error describing the mismatch against the closest allowed state.
func (o *Oracle) Check(got mstore.Snapshot) (int, error) {
	for k := o.acked; k <= o.open; k++ {
		if cmp.Equal(got, o.states[k], emptyEqual) {
			return k, nil
		}
	}
	return -1, fmt.Errorf("recovered state is not an allowed commit prefix (acked %d, open up to %d); diff against state %d (-want +got):\n%s",
		o.acked, o.open, o.acked, cmp.Diff(o.states[o.acked], got, emptyEqual))
}

// CheckVisible holds what a live store shows to the acknowledged state,
// its next seq aside: after a refused commit nothing of it may show, and
// a store that failed a write may refuse every later commit, commit([])
// included, so it cannot tell its next seq.
func (o *Oracle) CheckVisible(got mstore.Snapshot) error {
	want := o.states[o.acked]
	got.NextSeq = want.NextSeq
	if cmp.Equal(got, want, emptyEqual) {
		return nil
	}
	return fmt.Errorf("the store shows more or less than its acknowledged commits (-want +got):\n%s", cmp.Diff(want, got, emptyEqual))
}

// Acknowledged is the index of the state holding every acknowledged commit.
func (o *Oracle) Acknowledged() int { return o.acked }

var emptyEqual = cmp.Comparer(func(a, b []mstore.Row) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].ID != b[i].ID || a[i].Seq != b[i].Seq || a[i].Timestamp != b[i].Timestamp ||
			(a[i].ParentID == nil) != (b[i].ParentID == nil) ||
			(a[i].ParentID != nil && *a[i].ParentID != *b[i].ParentID) {
			return false
		}
	}
	return true
})

func describe(ws []mstore.Write) string {
	s := "["
	for i, w := range ws {
		if i > 0 {
			s += "; "
		}
		s += w.Describe()
	}
	return s + "]"
}

func cmpEqual(a, b mstore.Snapshot) bool { return cmp.Equal(a, b, emptyEqual) }

func mstore2store(a mstore.Addr) store.Address {
	return store.Address{Namespace: a.Namespace, Key: a.Key, Kind: store.KindValue}
}
