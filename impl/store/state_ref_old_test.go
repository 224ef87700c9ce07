package store

// refState is State as it was before the Apply speed work (issue 14),
// copied from state.go and renamed (less AdvanceNextSeq, which Apply's
// work did not touch), kept as the reference that
// TestStateMatchesReference compares State against: that work must not
// change any result.

import (
	"slices"
	"sort"
	"strings"
)

type refState struct {
	nextSeq  int64
	entries  []StoredEntry
	entryIDs map[string]bool
	usage    []StoredUsage
	usageIDs map[string]bool
	values   map[string]map[string]StoredValue // namespace → key → value
	lists    map[listKey]*refListState         // (namespace, key) → elements
	// lastList caches the list appended to last: replays and streams
	// append runs of frames to one list.
	lastList *refListState
}
type refListState struct {
	addr     Address
	elements []ListElement // ascending seq
}

// newRefState returns an empty state whose first seq is 1.
func newRefState() *refState {
	return &refState{
		nextSeq:  1,
		entryIDs: map[string]bool{},
		usageIDs: map[string]bool{},
		values:   map[string]map[string]StoredValue{},
		lists:    map[listKey]*refListState{},
	}
}

// NextSeq is the seq the next write will get.
func (s *refState) NextSeq() int64 { return s.nextSeq }

// HasEntryOrUsage implements Lookup.
func (s *refState) HasEntryOrUsage(id string) bool { return s.entryIDs[id] || s.usageIDs[id] }

// HasEntry implements Lookup.
func (s *refState) HasEntry(id string) bool { return s.entryIDs[id] }

// Apply applies writes that Validate accepted. Applying unvalidated writes is
// a programming error and may corrupt the state.
func (s *refState) Apply(writes []CommittedWrite) {
	for _, w := range writes {
		switch w.Kind {
		case WriteEntry:
			s.entryIDs[w.Entry.ID] = true
			s.entries = append(s.entries, StoredEntry{Entry: *w.Entry, Seq: w.Seq, Timestamp: w.Timestamp})
		case WriteUsage:
			s.usageIDs[w.Usage.ID] = true
			s.usage = append(s.usage, StoredUsage{Row: *w.Usage, Seq: w.Seq})
		case WriteValue:
			ns := s.values[w.Namespace]
			if w.Op == OpDelete {
				if ns != nil {
					delete(ns, w.Key)
					if len(ns) == 0 {
						delete(s.values, w.Namespace)
					}
				}
				break
			}
			if ns == nil {
				ns = map[string]StoredValue{}
				s.values[w.Namespace] = ns
			}
			ns[w.Key] = StoredValue{
				Address: Address{Namespace: w.Namespace, Key: w.Key, Kind: KindValue},
				Value:   w.Value,
				Seq:     w.Seq,
			}
		case WriteList:
			pk := physicalListKey(w.Namespace, w.Key)
			if w.Op == OpDelete {
				delete(s.lists, pk)
				s.lastList = nil
				break
			}
			l := s.lastList
			if l == nil || l.addr.Namespace != w.Namespace || l.addr.Key != w.Key {
				l = s.lists[pk]
			}
			if l == nil {
				l = &refListState{addr: Address{Namespace: w.Namespace, Key: w.Key, Kind: KindList}}
				s.lists[pk] = l
			}
			if l.elements == nil {
				l.elements = make([]ListElement, 0, 16) // a response streams many frames
			}
			l.elements = append(l.elements, ListElement{Seq: w.Seq, Value: w.Value})
			s.lastList = l
		}
		s.nextSeq = w.Seq + 1
	}
}

// GetValue returns the value at addr, or nil when absent.
func (s *refState) GetValue(addr Address) *StoredValue {
	v, ok := s.values[addr.Namespace][addr.Key]
	if !ok {
		return nil
	}
	return &v
}

// ScanValues returns the values of namespace whose key starts with prefix,
// in ascending key order. Go compares strings bytewise, which for valid
// UTF-8 is code point order: exactly pi's compareKeys (which compares code
// points, not UTF-16 units). Addresses are required to be valid UTF-8.
func (s *refState) ScanValues(namespace, prefix string) []StoredValue {
	out := []StoredValue{}
	for k, v := range s.values[namespace] {
		if strings.HasPrefix(k, prefix) {
			out = append(out, v)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Address.Key < out[j].Address.Key })
	return out
}

// ReadList pages the list at addr (pi's readList): exclusive cursor, order
// applied before the limit, an absent list is empty.
func (s *refState) ReadList(addr Address, opts ReadOptions) ([]ListElement, error) {
	r, err := ResolveReadOptions(opts)
	if err != nil {
		return nil, err
	}
	var elems []ListElement
	if l := s.lists[physicalListKey(addr.Namespace, addr.Key)]; l != nil {
		elems = l.elements
	}
	return PageList(elems, r), nil
}

// Entries returns every entry in seq order.
func (s *refState) Entries() []StoredEntry { return slices.Clone(s.entries) }

// Usage returns every usage row in seq order.
func (s *refState) Usage() []StoredUsage { return slices.Clone(s.usage) }

// Snapshot returns every surviving record as a committed write, in seq order:
// entries, usage rows, live values (set with their seq) and list elements
// (one append per element). Replaying it into an empty state (after
// AdvanceNextSeq) reproduces this state; it is what compaction writes.
func (s *refState) Snapshot() []CommittedWrite {
	out := make([]CommittedWrite, 0, len(s.entries)+len(s.usage))
	for _, e := range s.entries {
		e := e
		out = append(out, CommittedWrite{Write: Write{Kind: WriteEntry, Entry: &e.Entry}, Seq: e.Seq, Timestamp: e.Timestamp})
	}
	for _, u := range s.usage {
		u := u
		out = append(out, CommittedWrite{Write: Write{Kind: WriteUsage, Usage: &u.Row}, Seq: u.Seq})
	}
	for ns, keys := range s.values {
		for key, v := range keys {
			out = append(out, CommittedWrite{Write: Write{Kind: WriteValue, Op: OpSet, Namespace: ns, Key: key, Value: v.Value}, Seq: v.Seq})
		}
	}
	for _, l := range s.lists {
		for _, el := range l.elements {
			out = append(out, CommittedWrite{Write: Write{Kind: WriteList, Op: OpAppend, Namespace: l.addr.Namespace, Key: l.addr.Key, Value: el.Value}, Seq: el.Seq})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Seq < out[j].Seq })
	return out
}

// ListKeys returns the keys of namespace's non-empty lists in key order.
// (Storage has no list scan; tools that inspect a whole file need one.)
func (s *refState) ListKeys(namespace string) []string {
	var out []string
	for _, l := range s.lists {
		if l.addr.Namespace == namespace && len(l.elements) > 0 {
			out = append(out, l.addr.Key)
		}
	}
	sort.Strings(out)
	return out
}
