// Package store is the reference semantics of frameproof's store: a
// sequential, map-based specification of commits (one global write sequence,
// all-or-none validation), scalar values, lists and immutable entry and usage
// rows, following pi-durability-facts.md §1. It also states, as pure
// functions, a per-address sequential specification for linearizability
// checking (see linearizable.go); props/ wraps it in a porcupine.Model.
//
// It imports only the standard library: it is a statement of what a reader
// must see, not a port of impl/store.
package store

import (
	"errors"
	"sort"
	"strings"
)

// Kind is a write kind.
type Kind string

// The four write kinds.
const (
	Entry Kind = "entry"
	Usage Kind = "usage"
	Value Kind = "value"
	List  Kind = "list"
)

// Op is a value or list operation.
type Op string

// Value writes set or delete; list writes append or delete.
const (
	Set    Op = "set"
	Delete Op = "delete"
	Append Op = "append"
)

// Addr is a value or list address (namespace + key). Values and lists live
// in separate maps, so the same Addr may name one of each.
type Addr struct{ Namespace, Key string }

func (a Addr) String() string { return a.Namespace + "/" + a.Key }

// Write is one write of a transaction. Entry and usage writes use ID (and
// ParentID for entries); value and list writes use Addr, Op and, for set and
// append, Value (canonical JSON text).
type Write struct {
	Kind     Kind
	Op       Op
	ID       string
	ParentID *string
	Addr     Addr
	Value    string
}

// Stored is a value or list element with the seq of the write that made it.
type Stored struct {
	Value string
	Seq   int64
}

// Row is an entry or usage row. Timestamp is the commit's, and only entries
// keep it (usage rows have 0).
type Row struct {
	ID        string
	ParentID  *string
	Seq       int64
	Timestamp int64
}

// Result is an acknowledged commit.
type Result struct {
	FirstSeq  int64
	Seqs      []int64
	Timestamp int64
}

// Pi's exact error strings (commit.ts, in-memory-storage-state.ts).
const (
	errDuplicateID   = "Duplicate entry or usage id: "
	errMissingParent = "Missing parent entry: "
	errListLimit     = "List read limit must be a positive safe integer"
)

// DuplicateIDError returns pi's error for a reused entry or usage id.
func DuplicateIDError(id string) error { return errors.New(errDuplicateID + id) }

// MissingParentError returns pi's error for an entry whose parent is absent.
func MissingParentError(id string) error { return errors.New(errMissingParent + id) }

// ErrListLimit is pi's error for a bad list read limit.
var ErrListLimit = errors.New(errListLimit)

// ValidateAddr applies pi's address rules; kind is "Value" for both values
// and lists, as pi's messages say.
func ValidateAddr(a Addr) error {
	switch {
	case a.Namespace == "":
		return errors.New("Value namespace must not be empty")
	case strings.ContainsRune(a.Namespace, 0):
		return errors.New("Value namespace must not contain \\u0000")
	case strings.ContainsRune(a.Key, 0):
		return errors.New("Value key must not contain \\u0000")
	}
	return nil
}

// Spec is the sequential store. The zero value is not usable; call New.
type Spec struct {
	nextSeq int64
	entries []Row
	usage   []Row
	ids     map[string]Kind
	values  map[Addr]Stored
	lists   map[Addr][]Stored
}

// New returns an empty store whose first seq is 1.
func New() *Spec {
	return &Spec{nextSeq: 1, ids: map[string]Kind{}, values: map[Addr]Stored{}, lists: map[Addr][]Stored{}}
}

// Clone returns an independent copy.
func (s *Spec) Clone() *Spec {
	c := &Spec{
		nextSeq: s.nextSeq,
		entries: append([]Row(nil), s.entries...),
		usage:   append([]Row(nil), s.usage...),
		ids:     make(map[string]Kind, len(s.ids)),
		values:  make(map[Addr]Stored, len(s.values)),
		lists:   make(map[Addr][]Stored, len(s.lists)),
	}
	for k, v := range s.ids {
		c.ids[k] = v
	}
	for k, v := range s.values {
		c.values[k] = v
	}
	for k, v := range s.lists {
		c.lists[k] = append([]Stored(nil), v...)
	}
	return c
}

// NextSeq is the seq the next write gets.
func (s *Spec) NextSeq() int64 { return s.nextSeq }

// check returns the first rule a transaction breaks, or nil: entry and
// usage ids are unique across both kinds and across the transaction, and an
// entry's parent exists already or earlier in the same transaction.
func (s *Spec) check(writes []Write) error {
	fresh := map[string]Kind{}
	for _, w := range writes {
		if w.Kind != Entry && w.Kind != Usage {
			continue
		}
		if _, dup := s.ids[w.ID]; dup {
			return DuplicateIDError(w.ID)
		}
		if _, dup := fresh[w.ID]; dup {
			return DuplicateIDError(w.ID)
		}
		if w.Kind == Entry && w.ParentID != nil {
			p := *w.ParentID
			if s.ids[p] != Entry && fresh[p] != Entry {
				return MissingParentError(p)
			}
		}
		fresh[w.ID] = w.Kind
	}
	return nil
}

// Commit applies writes as one transaction stamped ts, or nothing and an
// error. Write i gets seq NextSeq+i; an empty commit consumes no seq.
func (s *Spec) Commit(writes []Write, ts int64) (Result, error) {
	if err := s.check(writes); err != nil {
		return Result{}, err
	}
	res := Result{FirstSeq: s.nextSeq, Seqs: []int64{}, Timestamp: ts}
	for _, w := range writes {
		seq := s.nextSeq
		s.nextSeq++
		res.Seqs = append(res.Seqs, seq)
		switch w.Kind {
		case Entry:
			s.ids[w.ID] = Entry
			s.entries = append(s.entries, Row{ID: w.ID, ParentID: w.ParentID, Seq: seq, Timestamp: ts})
		case Usage:
			s.ids[w.ID] = Usage
			s.usage = append(s.usage, Row{ID: w.ID, Seq: seq})
		case Value:
			if w.Op == Delete {
				delete(s.values, w.Addr)
			} else {
				s.values[w.Addr] = Stored{Value: w.Value, Seq: seq}
			}
		case List:
			if w.Op == Delete {
				delete(s.lists, w.Addr)
			} else {
				s.lists[w.Addr] = append(s.lists[w.Addr], Stored{Value: w.Value, Seq: seq})
			}
		}
	}
	return res, nil
}

// GetValue returns the value at a.
func (s *Spec) GetValue(a Addr) (Stored, bool) {
	v, ok := s.values[a]
	return v, ok
}

// KeyedValue is a ScanValues result.
type KeyedValue struct {
	Key string
	Stored
}

// ScanValues returns the values of namespace whose key starts with prefix in
// ascending key order (bytewise, i.e. code point order for UTF-8).
func (s *Spec) ScanValues(namespace, prefix string) []KeyedValue {
	out := []KeyedValue{}
	for a, v := range s.values {
		if a.Namespace == namespace && strings.HasPrefix(a.Key, prefix) {
			out = append(out, KeyedValue{Key: a.Key, Stored: v})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out
}

// ReadList pages a list: limit 0 means 1000, above 10,000 is clamped,
// negative is ErrListLimit; the cursor is exclusive and applied in the read
// direction before the limit.
func (s *Spec) ReadList(a Addr, cursor *int64, desc bool, limit int) ([]Stored, error) {
	if limit == 0 {
		limit = 1000
	}
	if limit < 0 {
		return nil, ErrListLimit
	}
	limit = min(limit, 10000)
	elems := s.lists[a]
	out := []Stored{}
	for i := range elems {
		e := elems[i]
		if desc {
			e = elems[len(elems)-1-i]
		}
		if cursor != nil && ((!desc && e.Seq <= *cursor) || (desc && e.Seq >= *cursor)) {
			continue
		}
		if len(out) == limit {
			break
		}
		out = append(out, e)
	}
	return out, nil
}

// Entries returns every entry in seq order.
func (s *Spec) Entries() []Row { return append([]Row(nil), s.entries...) }

// Usage returns every usage row in seq order.
func (s *Spec) Usage() []Row { return append([]Row(nil), s.usage...) }

// AddrValue is a value with its address, for snapshots.
type AddrValue struct {
	Addr Addr
	Stored
}

// AddrList is a non-empty list with its address, for snapshots.
type AddrList struct {
	Addr  Addr
	Elems []Stored
}

// Snapshot is the whole observable state in a canonical order, for
// comparing a backend (or a recovered file) against the specification.
type Snapshot struct {
	NextSeq int64
	Entries []Row
	Usage   []Row
	Values  []AddrValue
	Lists   []AddrList
}

// Snapshot returns the canonical observable state. Rows and elements are in
// seq order, values and lists in address order.
func (s *Spec) Snapshot() Snapshot {
	snap := Snapshot{NextSeq: s.nextSeq, Entries: s.Entries(), Usage: s.Usage()}
	for a, v := range s.values {
		snap.Values = append(snap.Values, AddrValue{a, v})
	}
	sort.Slice(snap.Values, func(i, j int) bool { return addrLess(snap.Values[i].Addr, snap.Values[j].Addr) })
	for a, l := range s.lists {
		if len(l) > 0 {
			snap.Lists = append(snap.Lists, AddrList{a, append([]Stored(nil), l...)})
		}
	}
	sort.Slice(snap.Lists, func(i, j int) bool { return addrLess(snap.Lists[i].Addr, snap.Lists[j].Addr) })
	return snap
}

func addrLess(a, b Addr) bool {
	if a.Namespace != b.Namespace {
		return a.Namespace < b.Namespace
	}
	return a.Key < b.Key
}

// Describe renders a write compactly for failure messages.
func (w Write) Describe() string {
	switch w.Kind {
	case Entry:
		p := "root"
		if w.ParentID != nil {
			p = *w.ParentID
		}
		return "entry " + w.ID + "<-" + p
	case Usage:
		return "usage " + w.ID
	default:
		s := string(w.Kind) + " " + string(w.Op) + " " + w.Addr.String()
		if w.Op != Delete {
			s += "=" + w.Value
		}
		return s
	}
}
