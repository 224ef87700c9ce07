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
//
// A list is three words in three fields, so that the compiler keeps it in
// registers (it does so for a struct of at most four words and four
// fields): as a seven-word struct it lived on the stack, and the copies
// from the State's query through the backend's to the caller, each read
// back as 16-byte loads of 8-byte stores, cost a page of the latest
// entries a third of its time (BenchmarkPiStorageRead/*/latest50, with
// the store's lock, whose locked instructions wait for those stores).
type EntryList struct {
	rows *rowsView[StoredEntry]
	pos  *[]int32 // the entries' rows in order; nil for a range
	// span is a range's first row (rows first, first+1, …, or first,
	// first-1, … when desc), the list's length and desc, in one word
	// (spanOf).
	span uint64
}

// spanOf packs a list's first row, length and direction into a span:
// first in the low 32 bits, n in the next 31, desc in the top bit.
func spanOf(first, n int, desc bool) uint64 {
	s := uint64(uint32(first)) | uint64(n)<<32
	if desc {
		s |= 1 << 63
	}
	return s
}

// EntriesOf is a list of the given entries (the caller's to give up), for
// a backend that builds its results (SQLite) rather than reading rows: a
// range over a view of es in place.
func EntriesOf(es []StoredEntry) EntryList {
	return EntryList{rows: viewOf(es), span: spanOf(0, len(es), false)}
}

// Len is the number of entries.
func (l EntryList) Len() int { return int(l.span>>32) & (1<<31 - 1) }

// row is the position of entry i in l.rows.
func (l EntryList) row(i int) int {
	first := int(int32(uint32(l.span)))
	switch {
	case l.pos != nil:
		return int((*l.pos)[i])
	case l.span>>63 != 0:
		return first - i
	}
	return first + i
}

// At returns entry i (0 <= i < Len), a copy.
func (l EntryList) At(i int) StoredEntry {
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
	out := make([]StoredEntry, l.Len())
	for i := range out {
		out[i] = l.At(i)
	}
	return out
}

// StructureList is the EntryStructures a scanBranchStructure returns,
// made from the store's rows as they are read (see EntryList).
type StructureList struct {
	entries EntryList
	meta    *rowsView[entryMeta]
	kinds   []EntryKind // the State's kinds when the scan ran; only appended to
	own     *[]EntryStructure
}

// StructuresOf is a list of the given structures, for a backend that
// builds its results.
func StructuresOf(ss []EntryStructure) StructureList {
	return StructureList{own: &ss, entries: EntryList{span: spanOf(0, len(ss), false)}}
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
