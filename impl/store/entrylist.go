package store

import "iter"

// EntryList is the entries a query returns. The memory and JSONL stores
// answer with the positions of the entries in their State, read in place,
// not with copies: pi's queries return the store's own entry objects, and
// copying each entry (64 bytes holding four pointers) into a fresh array
// cost more than the query itself, because the collector scans every copy
// and, while it marks, each copied pointer takes a write barrier
// (BenchmarkPiStorageRead's profile). Positions are int32s the collector
// does not scan, and a run of consecutive rows (an unfiltered scanEntries
// page) is a range, with nothing allocated at all.
//
// A list cannot change the store: At returns a copy of the entry, and
// there is no other way in. What a copy shares with the store is what
// Querier says (an entry's Raw bytes, its ParentID's string). The rows a
// list names are never written again (a State only appends), so a list
// reads the same entries after later commits. A list keeps the store's
// rows reachable, as a held pi entry keeps its object: a caller that
// keeps entries past its store's life copies them out (Slice).
type EntryList struct {
	rows  rowsView[StoredEntry]
	pos   []int32        // the entries' rows in order; nil for a range
	own   *[]StoredEntry // EntriesOf's entries, for a backend without rows
	first int32          // a range: rows first, first+1, … (first, first-1, … when desc)
	n     int32
	desc  bool
}

// EntriesOf is a list of the given entries (the caller's to give up), for
// a backend that builds its results (SQLite) rather than reading rows.
func EntriesOf(es []StoredEntry) EntryList { return EntryList{own: &es, n: int32(len(es))} }

// Len is the number of entries.
func (l EntryList) Len() int { return int(l.n) }

// row is the position of entry i in l.rows.
func (l EntryList) row(i int) int {
	switch {
	case l.pos != nil:
		return int(l.pos[i])
	case l.desc:
		return int(l.first) - i
	}
	return int(l.first) + i
}

// At returns entry i (0 <= i < Len), a copy.
func (l EntryList) At(i int) StoredEntry {
	if l.own != nil {
		return (*l.own)[i]
	}
	return *l.rows.at(l.row(i))
}

// All yields the entries in order with their indices.
func (l EntryList) All() iter.Seq2[int, StoredEntry] {
	return func(yield func(int, StoredEntry) bool) {
		for i := range l.Len() {
			if !yield(i, l.At(i)) {
				return
			}
		}
	}
}

// Slice copies the entries into a new slice (empty, not nil, when none:
// pi's results are arrays).
func (l EntryList) Slice() []StoredEntry {
	out := make([]StoredEntry, l.n)
	for i := range out {
		out[i] = l.At(i)
	}
	return out
}

// StructureList is the EntryStructures a scanBranchStructure returns,
// made from the store's rows as they are read (see EntryList).
type StructureList struct {
	entries EntryList
	meta    rowsView[entryMeta]
	kinds   []EntryKind // the State's kinds when the scan ran; only appended to
	own     *[]EntryStructure
}

// StructuresOf is a list of the given structures, for a backend that
// builds its results.
func StructuresOf(ss []EntryStructure) StructureList {
	return StructureList{own: &ss, entries: EntryList{n: int32(len(ss))}}
}

// Len is the number of structures.
func (l StructureList) Len() int { return l.entries.Len() }

// At returns structure i (0 <= i < Len).
func (l StructureList) At(i int) EntryStructure {
	if l.own != nil {
		return (*l.own)[i]
	}
	r := l.entries.row(i)
	return Structure(*l.entries.rows.at(r), l.kinds[l.meta.at(r).kind])
}

// All yields the structures in order with their indices.
func (l StructureList) All() iter.Seq2[int, EntryStructure] {
	return func(yield func(int, EntryStructure) bool) {
		for i := range l.Len() {
			if !yield(i, l.At(i)) {
				return
			}
		}
	}
}

// Slice copies the structures into a new slice (empty, not nil, when none).
func (l StructureList) Slice() []EntryStructure {
	out := make([]EntryStructure, l.Len())
	for i := range out {
		out[i] = l.At(i)
	}
	return out
}
