// Package storetest is the conformance suite every store.Storage backend
// runs: a rapid state machine of random commits (all six write kinds,
// invalid ones included) checked against a small map-based reference written
// independently of store.State, with every read compared after every step.
//
// It is an ordinary (non-test) package so that backend tests and the
// simulator can import it.
package storetest

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/frameproof/frameproof/impl/store"
)

// Open returns a fresh, empty backend.
type Open func(t *testing.T) store.Storage

// Reopen closes s and returns the same storage opened again (persistence).
type Reopen func(t *testing.T, s store.Storage) store.Storage

// Run runs the conformance state machine on fresh backends from open.
func Run(t *testing.T, open Open) { RunWithReopen(t, open, nil) }

// RunWithReopen is Run with an extra action that reopens the backend; state
// must survive unchanged.
func RunWithReopen(t *testing.T, open Open, reopen Reopen) {
	t.Run("StateMachine", func(t *testing.T) { Check(t, t, open, reopen) })
}

// Check runs the state machine reporting to tb; t is handed to open and
// reopen. Tests of the suite itself pass a recording tb to see it fail.
func Check(tb rapid.TB, t *testing.T, open Open, reopen Reopen) {
	checkPaging(tb, t, open)
	if tb.Failed() {
		return
	}
	CheckMachine(tb, t, open, reopen, MachineOptions{})
}

// MachineOptions tune the state machine.
type MachineOptions struct {
	// ValidShapesOnly draws no write of an invalid shape (an unparsable
	// value, an address pi's value()/list() refuse, an unknown kind): a
	// store reached over a JSON protocol (props/storeconform) cannot be
	// sent the first, and the others are a case of their own there.
	ValidShapesOnly bool
}

// CheckMachine runs the rapid state machine alone.
func CheckMachine(tb rapid.TB, t *testing.T, open Open, reopen Reopen, o MachineOptions) {
	rapid.Check(tb, func(rt *rapid.T) {
		m := &machine{t: t, rt: rt, s: open(t), ref: newReference(), reopen: reopen, validOnly: o.ValidShapesOnly}
		defer func() { _ = m.s.Close() }()
		rt.Repeat(m.actions())
	})
}

var (
	namespaces = []string{"a", "pi.op.tool_args"}
	keys       = []string{"", "k", "k1", "k1:x", "k2", "\u00e9", "\U0001F600"}
	ids        = []string{"i0", "i1", "i2", "i3", "i4", "i5", "i6", "i7"}
	prefixes   = []string{"", "k", "k1", "k1:", "\u00e9"}
)

type machine struct {
	t      *testing.T
	rt     *rapid.T
	s      store.Storage
	ref    *reference
	reopen Reopen
	// validOnly: MachineOptions.ValidShapesOnly.
	validOnly bool
}

func (m *machine) actions() map[string]func(*rapid.T) {
	a := map[string]func(*rapid.T){
		"commit":   m.commit,
		"readList": m.readList,
		"":         m.check,
	}
	if m.reopen != nil {
		a["reopen"] = func(*rapid.T) { m.s = m.reopen(m.t, m.s) }
	}
	return a
}

// genWrite draws one write; ok=false marks a write whose shape is invalid.
func genWrite(t *rapid.T, validOnly bool) (store.Write, bool) {
	ns := rapid.SampledFrom(namespaces).Draw(t, "ns")
	key := rapid.SampledFrom(keys).Draw(t, "key")
	addr := store.Address{Namespace: ns, Key: key}
	value := func() json.RawMessage {
		return json.RawMessage(rapid.SampledFrom([]string{`1`, `"x"`, `{"a":[1,2]}`, `null`, `"<&>"`}).Draw(t, "value"))
	}
	kinds := 9
	if validOnly {
		kinds = 7
	}
	switch rapid.IntRange(0, kinds).Draw(t, "kind") {
	case 0, 1:
		id := rapid.SampledFrom(ids).Draw(t, "id")
		var parent *string
		pj := "null"
		if rapid.Bool().Draw(t, "hasParent") {
			p := rapid.SampledFrom(ids).Draw(t, "parent")
			parent, pj = &p, `"`+p+`"`
		}
		return store.InsertEntry(store.Entry{ID: id, ParentID: parent,
			Raw: json.RawMessage(`{"type":"message","id":"` + id + `","parentId":` + pj + `,"n":` + fmt.Sprint(rapid.IntRange(0, 9).Draw(t, "n")) + `}`)}), true
	case 2:
		id := rapid.SampledFrom(ids).Draw(t, "id")
		return store.InsertUsage(store.UsageRow{ID: id, Raw: json.RawMessage(`{"id":"` + id + `","usage":{"input":1,"cost":{"total":0}},"adjustment":false}`)}), true
	case 3:
		return store.SetValueRaw(addr, value()), true
	case 4:
		return store.DeleteValueRaw(addr), true
	case 5, 6:
		return store.AppendListRaw(addr, value()), true
	case 7:
		return store.DeleteListRaw(addr), true
	default:
		switch rapid.IntRange(0, 3).Draw(t, "invalid") {
		case 0:
			return store.SetValueRaw(addr, json.RawMessage(`{"unterminated"`)), false
		case 1:
			return store.AppendListRaw(store.Address{Namespace: "", Key: key}, json.RawMessage(`1`)), false
		case 2:
			return store.Write{Kind: "register", Namespace: ns, Key: key, Value: json.RawMessage(`1`)}, false
		default:
			return store.DeleteValueRaw(store.Address{Namespace: ns, Key: "a\x00b"}), false
		}
	}
}

func (m *machine) commit(t *rapid.T) {
	n := rapid.IntRange(0, 4).Draw(t, "writes")
	writes := make([]store.Write, n)
	shapeOK := true
	for i := range writes {
		var ok bool
		writes[i], ok = genWrite(t, m.validOnly)
		shapeOK = shapeOK && ok
	}
	// The reference gets its own deep copy, so a backend that mutates its
	// input cannot also corrupt the specification.
	refWrites := cloneWrites(writes)
	res, err := m.commitVia(t, writes)
	want, wantErr := m.ref.commit(refWrites, shapeOK, res.Timestamp)
	switch {
	case wantErr != "" && err == nil:
		t.Fatalf("commit %v: want error %q, got success %+v", writes, wantErr, res)
	case wantErr == "" && err != nil:
		t.Fatalf("commit %v: unexpected error %v", writes, err)
	case wantErr != "" && wantErr != "*" && err.Error() != wantErr:
		t.Fatalf("commit %v: error %q, want %q", writes, err, wantErr)
	case err == nil:
		if res.FirstSeq != want.FirstSeq || !slices.Equal(res.Seqs, want.Seqs) && len(res.Seqs)+len(want.Seqs) > 0 {
			t.Fatalf("commit result first=%d seqs=%v, want first=%d seqs=%v", res.FirstSeq, res.Seqs, want.FirstSeq, want.Seqs)
		}
	}
}

// commitVia commits writes by Commit or, drawn, as a prepared store.Tx
// (store.CommitTx: the store's CommitTx, or Commit of the Tx's writes
// for a store without one), whose error, if NewTx refuses the writes, is
// the commit's. The writes' bytes are overwritten once the Tx is made: a
// Tx owns its rows, and a store committing it must read none of the
// caller's.
func (m *machine) commitVia(t *rapid.T, writes []store.Write) (store.CommitResult, error) {
	if !rapid.Bool().Draw(t, "viaTx") {
		return m.s.Commit(writes)
	}
	tx, err := store.NewTx(writes)
	if err != nil {
		return store.CommitResult{}, err
	}
	for _, w := range writes {
		switch {
		case w.Entry != nil:
			clear(w.Entry.Raw)
		case w.Usage != nil:
			clear(w.Usage.Raw)
		}
		clear(w.Value)
	}
	return store.CommitTx(m.s, tx)
}

func (m *machine) readList(t *rapid.T) {
	addr := store.Address{Namespace: rapid.SampledFrom(namespaces).Draw(t, "ns"), Key: rapid.SampledFrom(keys).Draw(t, "key"), Kind: store.KindList}
	opts := store.ReadOptions{
		Order: rapid.SampledFrom([]store.Order{"", store.Asc, store.Desc}).Draw(t, "order"),
		Limit: rapid.SampledFrom([]int{0, 1, 2, 3, 20_000, -1}).Draw(t, "limit"),
	}
	if rapid.Bool().Draw(t, "cursor") {
		c := rapid.Int64Range(0, m.ref.next+1).Draw(t, "cursorSeq")
		opts.Cursor = &c
	}
	got, err := m.s.ReadList(addr, opts)
	want, wantErr := m.ref.readList(addr, opts)
	if wantErr != "" {
		if err == nil || err.Error() != wantErr {
			t.Fatalf("readList %+v: error %v, want %q", opts, err, wantErr)
		}
		return
	}
	if err != nil {
		t.Fatalf("readList %+v: %v", opts, err)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("readList %v %+v (-want +got):\n%s", addr, opts, d)
	}
}

// check compares every read with the reference.
func (m *machine) check(t *rapid.T) {
	if got := m.s.NextSeq(); got != m.ref.next {
		t.Fatalf("NextSeq %d, want %d", got, m.ref.next)
	}
	for _, ns := range namespaces {
		for _, p := range prefixes {
			got, err := m.s.ScanValues(ns, p)
			if err != nil {
				t.Fatalf("ScanValues: %v", err)
			}
			if d := cmp.Diff(m.ref.scan(ns, p), got); d != "" {
				t.Fatalf("ScanValues(%q,%q) (-want +got):\n%s", ns, p, d)
			}
		}
		for _, k := range keys {
			a := store.Address{Namespace: ns, Key: k, Kind: store.KindValue}
			got, err := m.s.GetValue(a)
			if err != nil {
				t.Fatalf("GetValue: %v", err)
			}
			if d := cmp.Diff(m.ref.get(ns, k), got); d != "" {
				t.Fatalf("GetValue(%q,%q) (-want +got):\n%s", ns, k, d)
			}
			la := store.Address{Namespace: ns, Key: k, Kind: store.KindList}
			els, err := m.s.ReadList(la, store.ReadOptions{Limit: 10_000})
			if err != nil {
				t.Fatalf("ReadList: %v", err)
			}
			want, _ := m.ref.readList(la, store.ReadOptions{Limit: 10_000})
			if d := cmp.Diff(want, els); d != "" {
				t.Fatalf("ReadList(%q,%q) (-want +got):\n%s", ns, k, d)
			}
		}
	}
	ents, err := m.s.Entries()
	if err != nil {
		t.Fatalf("Entries: %v", err)
	}
	if d := cmp.Diff(m.ref.entries, ents, cmp.Comparer(rawEqual)); d != "" && !(len(ents) == 0 && len(m.ref.entries) == 0) {
		t.Fatalf("Entries (-want +got):\n%s", d)
	}
	us, err := m.s.Usage()
	if err != nil {
		t.Fatalf("Usage: %v", err)
	}
	if d := cmp.Diff(m.ref.usage, us, cmp.Comparer(rawEqual)); d != "" && !(len(us) == 0 && len(m.ref.usage) == 0) {
		t.Fatalf("Usage (-want +got):\n%s", d)
	}
}

func rawEqual(a, b json.RawMessage) bool { return string(a) == string(b) }

// reference is the specification: plain maps and slices, pi's rules
// restated without sharing code with store.State.
type reference struct {
	next    int64
	values  map[string]store.StoredValue
	lists   map[string][]store.ListElement
	entries []store.StoredEntry
	usage   []store.StoredUsage
	idKind  map[string]store.WriteKind
}

func newReference() *reference {
	return &reference{next: 1, values: map[string]store.StoredValue{}, lists: map[string][]store.ListElement{}, idKind: map[string]store.WriteKind{}}
}

func pk(ns, key string) string { return ns + "\x00" + key }

// commit returns the expected result, or the expected error ("*" = some
// non-pi shape error).
func (r *reference) commit(writes []store.Write, shapeOK bool, ts int64) (store.CommitResult, string) {
	if !shapeOK {
		return store.CommitResult{}, "*"
	}
	txKind := map[string]store.WriteKind{}
	for _, w := range writes {
		var id string
		switch w.Kind {
		case store.WriteEntry:
			id = w.Entry.ID
		case store.WriteUsage:
			id = w.Usage.ID
		default:
			continue
		}
		if _, dup := r.idKind[id]; dup {
			return store.CommitResult{}, "Duplicate entry or usage id: " + id
		}
		if _, dup := txKind[id]; dup {
			return store.CommitResult{}, "Duplicate entry or usage id: " + id
		}
		if w.Kind == store.WriteEntry && w.Entry.ParentID != nil {
			p := *w.Entry.ParentID
			if r.idKind[p] != store.WriteEntry && txKind[p] != store.WriteEntry {
				return store.CommitResult{}, "Missing parent entry: " + p
			}
		}
		txKind[id] = w.Kind
	}
	res := store.CommitResult{FirstSeq: r.next, Timestamp: ts}
	for _, w := range writes {
		seq := r.next
		r.next++
		res.Seqs = append(res.Seqs, seq)
		k := pk(w.Namespace, w.Key)
		switch {
		case w.Kind == store.WriteEntry:
			r.idKind[w.Entry.ID] = store.WriteEntry
			r.entries = append(r.entries, store.StoredEntry{Entry: *w.Entry, Seq: seq, Timestamp: ts})
		case w.Kind == store.WriteUsage:
			r.idKind[w.Usage.ID] = store.WriteUsage
			r.usage = append(r.usage, store.StoredUsage{Row: *w.Usage, Seq: seq})
		case w.Kind == store.WriteValue && w.Op == store.OpSet:
			r.values[k] = store.StoredValue{Address: store.Address{Namespace: w.Namespace, Key: w.Key, Kind: store.KindValue}, Value: w.Value, Seq: seq}
		case w.Kind == store.WriteValue:
			delete(r.values, k)
		case w.Op == store.OpAppend:
			r.lists[k] = append(r.lists[k], store.ListElement{Seq: seq, Value: w.Value})
		default:
			delete(r.lists, k)
		}
	}
	return res, ""
}

func (r *reference) get(ns, key string) *store.StoredValue {
	v, ok := r.values[pk(ns, key)]
	if !ok {
		return nil
	}
	return &v
}

func (r *reference) scan(ns, prefix string) []store.StoredValue {
	out := []store.StoredValue{}
	for _, v := range r.values {
		if v.Address.Namespace == ns && strings.HasPrefix(v.Address.Key, prefix) {
			out = append(out, v)
		}
	}
	// Code point order; for valid UTF-8 byte order is code point order.
	sort.Slice(out, func(i, j int) bool { return runesLess(out[i].Address.Key, out[j].Address.Key) })
	return out
}

func runesLess(a, b string) bool {
	ra, rb := []rune(a), []rune(b)
	for i := 0; i < len(ra) && i < len(rb); i++ {
		if ra[i] != rb[i] {
			return ra[i] < rb[i]
		}
	}
	return len(ra) < len(rb)
}

func (r *reference) readList(addr store.Address, o store.ReadOptions) ([]store.ListElement, string) {
	limit := o.Limit
	if limit == 0 {
		limit = 1000
	}
	if limit < 0 {
		return nil, "List read limit must be a positive safe integer"
	}
	if limit > 10_000 {
		limit = 10_000
	}
	desc := o.Order == store.Desc
	out := []store.ListElement{}
	els := r.lists[pk(addr.Namespace, addr.Key)]
	for i := range els {
		e := els[i]
		if desc {
			e = els[len(els)-1-i]
		}
		if o.Cursor != nil && (!desc && e.Seq <= *o.Cursor || desc && e.Seq >= *o.Cursor) {
			continue
		}
		if len(out) < limit {
			out = append(out, e)
		}
	}
	return out, ""
}

func cloneWrites(ws []store.Write) []store.Write {
	out := make([]store.Write, len(ws))
	for i, w := range ws {
		if w.Entry != nil {
			e := *w.Entry
			if e.ParentID != nil {
				p := *e.ParentID
				e.ParentID = &p
			}
			e.Raw = slices.Clone(e.Raw)
			w.Entry = &e
		}
		if w.Usage != nil {
			u := *w.Usage
			u.Raw = slices.Clone(u.Raw)
			w.Usage = &u
		}
		w.Value = slices.Clone(w.Value)
		out[i] = w
	}
	return out
}

// checkPaging is the deterministic part of the suite: random cursors find
// an off-by-one cursor only sometimes, so every backend pages a list with
// every limit in both orders, and reads it from every cursor seq (element
// seqs and the gaps other writes leave between them), against the rule
// that a cursor is exclusive.
func checkPaging(tb rapid.TB, t *testing.T, open Open) {
	s := open(t)
	defer func() { _ = s.Close() }()
	CheckPaging(tb, s)
	if !tb.Failed() {
		CheckScanAndParent(tb, s)
	}
}

// CheckPaging is the paging case alone, on s (fresh and empty): every limit
// in both orders, every cursor, and a list deleted then appended to.
func CheckPaging(tb rapid.TB, s store.Storage) {
	list := store.Address{Namespace: "a", Key: "paged", Kind: store.KindList}
	other := store.Address{Namespace: "a", Key: "other"}
	var all []store.ListElement
	for i := 0; i < 7; i++ {
		writes := []store.Write{store.AppendListRaw(list, json.RawMessage(fmt.Sprint(i)))}
		if i%2 == 1 {
			writes = append([]store.Write{store.SetValueRaw(other, json.RawMessage(fmt.Sprint(i)))}, writes...)
		}
		res, err := s.Commit(writes)
		if err != nil || len(res.Seqs) != len(writes) {
			tb.Fatalf("paging setup: commit %d: %v (seqs %v)", i, err, res.Seqs)
			return
		}
		all = append(all, store.ListElement{Seq: res.Seqs[len(res.Seqs)-1], Value: json.RawMessage(fmt.Sprint(i))})
	}
	for _, order := range []store.Order{store.Asc, store.Desc} {
		want := slices.Clone(all)
		if order == store.Desc {
			slices.Reverse(want)
		}
		for limit := 1; limit <= 3; limit++ {
			if got := pageThrough(tb, s, list, order, limit, len(all)+2); !slices.EqualFunc(got, want, elementEqual) {
				tb.Fatalf("paging %s with limit %d: got %v, want %v", order, limit, got, want)
				return
			}
		}
		for c := int64(0); c <= all[len(all)-1].Seq+1; c++ {
			var exp []store.ListElement
			for _, e := range want {
				if order == store.Asc && e.Seq > c || order == store.Desc && e.Seq < c {
					exp = append(exp, e)
				}
			}
			got, err := s.ReadList(list, store.ReadOptions{Order: order, Cursor: &c})
			if err != nil || !slices.EqualFunc(got, exp, elementEqual) {
				tb.Fatalf("readList %s after cursor %d: got %v (%v), want %v", order, c, got, err, exp)
				return
			}
		}
	}
	// A deleted list reads empty, and an append after the delete starts a
	// fresh list.
	if _, err := s.Commit([]store.Write{store.DeleteListRaw(list)}); err != nil {
		tb.Fatalf("paging: deleting the list: %v", err)
		return
	}
	res, err := s.Commit([]store.Write{store.AppendListRaw(list, json.RawMessage(`"again"`))})
	if err != nil || len(res.Seqs) != 1 {
		tb.Fatalf("paging: appending after the delete: %v (seqs %v)", err, res.Seqs)
		return
	}
	want := []store.ListElement{{Seq: res.Seqs[0], Value: json.RawMessage(`"again"`)}}
	if got, err := s.ReadList(list, store.ReadOptions{}); err != nil || !slices.EqualFunc(got, want, elementEqual) {
		tb.Fatalf("paging: list after delete and append: got %v (%v), want %v", got, err, want)
		return
	}
}

// CheckScanAndParent: a scan is in key order whatever the write order, and
// an entry whose parent does not exist is refused with pi's error.
func CheckScanAndParent(tb rapid.TB, s store.Storage) {
	var ws []store.Write
	for _, k := range []string{"k2", "\u00e9", "k", "k1:x", "k1"} {
		ws = append(ws, store.SetValueRaw(store.Address{Namespace: "scan", Key: k}, json.RawMessage(`1`)))
	}
	if _, err := s.Commit(ws); err != nil {
		tb.Fatalf("scan setup: %v", err)
		return
	}
	got, err := s.ScanValues("scan", "")
	var keys []string
	for _, v := range got {
		keys = append(keys, v.Address.Key)
	}
	if want := []string{"k", "k1", "k1:x", "k2", "\u00e9"}; err != nil || !slices.Equal(keys, want) {
		tb.Fatalf("scan order: got %q (%v), want %q", keys, err, want)
		return
	}
	missing := "no-such-parent"
	_, err = s.Commit([]store.Write{store.InsertEntry(store.Entry{ID: "orphan", ParentID: &missing,
		Raw: json.RawMessage(`{"type":"message","id":"orphan","parentId":"no-such-parent"}`)})})
	if err == nil || err.Error() != "Missing parent entry: no-such-parent" {
		tb.Fatalf("parent: an entry with a missing parent: error %v, want %q", err, "Missing parent entry: no-such-parent")
	}
}

// pageThrough reads a list page by page, each cursor the last seq of the
// page before, for at most max pages.
func pageThrough(tb rapid.TB, s store.Storage, a store.Address, order store.Order, limit, max int) []store.ListElement {
	var out []store.ListElement
	var cursor *int64
	for page := 0; page < max; page++ {
		got, err := s.ReadList(a, store.ReadOptions{Order: order, Limit: limit, Cursor: cursor})
		if err != nil {
			tb.Fatalf("paging %s with limit %d: page %d: %v", order, limit, page, err)
			return nil
		}
		out = append(out, got...)
		if len(got) < limit {
			return out
		}
		last := got[len(got)-1].Seq
		cursor = &last
	}
	return out
}

func elementEqual(a, b store.ListElement) bool { return a.Seq == b.Seq && rawEqual(a.Value, b.Value) }
