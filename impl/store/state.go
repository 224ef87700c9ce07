package store

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
)

// State is the complete materialized store state used by the memory and
// JSONL backends (pi's InMemoryStorageState). It is not safe for concurrent
// use; backends guard it.
type State struct {
	nextSeq int64
	entries rows[StoredEntry]
	meta    rows[entryMeta]  // entries[i]'s kind and place in the tree, for the queries
	kinds   kindTable        // the distinct entry kinds, which meta indexes
	ids     map[string]idRef // entry and usage ids: one lookup answers HasEntryOrUsage and finds an entry
	usage   rows[StoredUsage]
	// stats are pi's running totals (applyValidated), but for the usage
	// rows from usageFolded on: GetStats folds those, in seq order, when
	// asked. A replayed session's rows are folded once, at the first
	// GetStats, not at open; the same additions in the same order give
	// the same totals, bit for bit.
	stats       SessionStats
	usageFolded int
	values      map[string]map[string]valueCell // namespace → key → value
	lists       map[listKey]*listState          // (namespace, key) → elements
	// lastList caches the list appended to last: replays and streams
	// append runs of frames to one list.
	lastList *listState
	// spare is a deleted list kept for the next list created: a session
	// deletes each response's frame list at settlement and then streams
	// the next response, so one element array, grown once to a response's
	// length, serves them all. No reader can see it: every accessor copies
	// elements out, and a deleted list is in neither lists nor lastList.
	spare *listState
	// unresolved counts the entries applied before their parent.
	unresolved int
}

// entryMeta is what the queries read of an entry besides the entry
// itself, without a pointer for the collector to trace: its kind as an
// index into kinds (an entry's type and customType repeat across a
// session), its parent as an index into entries (noParent for a root), so
// that a branch walk follows indices rather than hashing an id per step,
// and its depth (a root's is 0), so that a walk allocates its result once.
type entryMeta struct {
	kind   uint32
	parent int32
	depth  int32
}

// noParent is a root's parent; unresolvedParent an entry whose parent was
// not in the state when it was applied (validated writes never do that;
// the walk then looks the parent up by id, as pi's does).
const (
	noParent         = -1
	unresolvedParent = -2
)

// idKinds says what an id names. Validated writes never give an entry and
// a usage row one id, but the bits keep both answers exact if they did.
type idKinds uint8

// idRef is what an id names, and where its entry is in entries.
type idRef struct {
	kinds idKinds
	entry int32
}

const (
	idEntry idKinds = 1 << iota
	idUsage
)

// listKey is a list's address as pi keys it (PhysicalParts of namespace
// and key); a struct rather than pi's physical-key string so that replaying
// an append does not build a string.
type listKey struct{ ns, key string }

func physicalListKey(namespace, key string) listKey {
	ns, k := PhysicalParts(namespace, key)
	return listKey{ns, k}
}

// valueCell is a StoredValue less its address, which is the cell's place in
// values (namespace and key): 32 bytes where a StoredValue is 80, and a
// session's maps hold one per operation.
type valueCell struct {
	value json.RawMessage
	seq   int64
}

func (c valueCell) stored(namespace, key string) StoredValue {
	return StoredValue{Address: Address{Namespace: namespace, Key: key, Kind: KindValue}, Value: c.value, Seq: c.seq}
}

type listState struct {
	addr     Address
	elements []ListElement // ascending seq
}

// NewState returns an empty state whose first seq is 1.
func NewState() *State {
	return &State{
		nextSeq: 1,
		ids:     map[string]idRef{},
		values:  map[string]map[string]valueCell{},
		lists:   map[listKey]*listState{},
	}
}

// NextSeq is the seq the next write will get.
func (s *State) NextSeq() int64 { return s.nextSeq }

// AdvanceNextSeq raises nextSeq to n if n is larger (a header high-water mark).
func (s *State) AdvanceNextSeq(n int64) error {
	if n < 1 || n > MaxSafeInteger {
		return fmt.Errorf("Invalid storage sequence high-water mark: %d", n)
	}
	s.nextSeq = max(s.nextSeq, n)
	return nil
}

// HasEntryOrUsage implements Lookup.
func (s *State) HasEntryOrUsage(id string) bool { return s.ids[id].kinds != 0 }

// HasEntry implements Lookup. The entry applied last (the usual parent of
// the next) is answered without a hash lookup.
func (s *State) HasEntry(id string) bool {
	if n := s.entries.len(); n > 0 && s.entries.at(n-1).Entry.ID == id {
		return true
	}
	return s.ids[id].kinds&idEntry != 0
}

// Prepare stamps writes with seqs from NextSeq and timestamp and validates
// them against the state. Nothing is applied. An empty transaction yields
// FirstSeq = NextSeq and no writes.
func (s *State) Prepare(writes []Write, timestamp int64) ([]CommittedWrite, CommitResult, error) {
	committed, _, res, err := s.PrepareKinds(writes, timestamp)
	return committed, res, err
}

// PrepareKinds is Prepare that also returns the entries' kinds, for
// ApplyKinds (see store.PrepareKinds).
func (s *State) PrepareKinds(writes []Write, timestamp int64) ([]CommittedWrite, []EntryKind, CommitResult, error) {
	committed, kinds, err := PrepareKinds(writes, s.nextSeq, timestamp)
	if err != nil {
		return nil, nil, CommitResult{}, err
	}
	if err := s.Validate(committed); err != nil {
		return nil, nil, CommitResult{}, err
	}
	if err := CheckUsageTotals(committed); err != nil {
		return nil, nil, CommitResult{}, err
	}
	return committed, kinds, ResultOf(committed, s.nextSeq, timestamp), nil
}

// Commit prepares writes (stamped from NextSeq with timestamp), validates
// them and applies them: what a backend that keeps only this state (the
// memory backend) does per commit. A transaction of entries alone takes
// ValidateApplyEntries, whose ids go into the state's map as they are
// checked, rather than Validate's own set of the transaction's ids and
// ApplyKinds' second pass over the map.
func (s *State) Commit(writes []Write, timestamp int64) (CommitResult, error) {
	committed, kinds, err := PrepareKinds(writes, s.nextSeq, timestamp)
	if err != nil {
		return CommitResult{}, err
	}
	return s.commitPrepared(committed, kinds, timestamp)
}

// CommitTx is Commit of a prepared transaction: its rows are not checked
// again.
func (s *State) CommitTx(tx *Tx, timestamp int64) (CommitResult, error) {
	if tx != nil && allEntries(tx.writes) {
		// the Tx's writes as they are, their seqs counted from NextSeq:
		// no stamped copy (120 bytes a write, pointers the collector is
		// told about: a tenth of a hundred entries' commit)
		first := s.nextSeq
		if len(s.ids) == 0 {
			s.reserveFor(tx.writes)
		}
		if err := s.validateApplyEntries(tx.writes, tx.kinds, stamp{first: first, ts: timestamp, counted: true}); err != nil {
			return CommitResult{}, err
		}
		return countedResult(first, len(tx.writes), timestamp), nil
	}
	committed, kinds := tx.Stamp(s.nextSeq, timestamp)
	return s.commitPrepared(committed, kinds, timestamp)
}

// countedResult is ResultOf n writes stamped from first.
func countedResult(first int64, n int, timestamp int64) CommitResult {
	seqs := make([]int64, n)
	for i := range seqs {
		seqs[i] = first + int64(i)
	}
	return CommitResult{FirstSeq: first, Seqs: seqs, Timestamp: timestamp}
}

// commitPrepared is Commit after Prepare.
func (s *State) commitPrepared(committed []CommittedWrite, kinds []EntryKind, timestamp int64) (CommitResult, error) {
	res := ResultOf(committed, s.nextSeq, timestamp)
	if allEntries(committed) {
		if len(s.ids) == 0 {
			s.reserveFor(committed)
		}
		if err := s.ValidateApplyEntries(committed, kinds); err != nil {
			return CommitResult{}, err
		}
		return res, nil
	}
	if err := s.Validate(committed); err != nil {
		return CommitResult{}, err
	}
	if err := CheckUsageTotals(committed); err != nil {
		return CommitResult{}, err
	}
	s.ApplyKinds(committed, kinds)
	return res, nil
}

// allEntries reports whether writes are entry writes, and some.
func allEntries(writes []CommittedWrite) bool {
	for i := range writes {
		if writes[i].Kind != WriteEntry {
			return false
		}
	}
	return len(writes) > 0
}

// ResultOf builds the CommitResult for prepared writes.
func ResultOf(writes []CommittedWrite, firstSeq, timestamp int64) CommitResult {
	seqs := make([]int64, len(writes))
	for i, w := range writes {
		seqs[i] = w.Seq
	}
	if len(writes) > 0 {
		firstSeq = writes[0].Seq
	}
	return CommitResult{FirstSeq: firstSeq, Seqs: seqs, Timestamp: timestamp}
}

// Validate checks committed writes against the state (ValidateCommitted).
func (s *State) Validate(writes []CommittedWrite) error {
	return ValidateCommitted(writes, s.nextSeq, s)
}

// Apply applies writes that Validate accepted. Applying unvalidated writes is
// a programming error and may corrupt the state.
func (s *State) Apply(writes []CommittedWrite) { s.ApplyKinds(writes, nil) }

// ApplyKinds is Apply given kinds[i], writes[i]'s KindOf when it is an
// entry (as PrepareKinds returns them), so that no row is scanned again;
// nil kinds are read from the rows.
func (s *State) ApplyKinds(writes []CommittedWrite, kinds []EntryKind) {
	if len(s.ids) == 0 {
		s.reserveFor(writes)
	}
	for i := range writes {
		w := &writes[i] // a CommittedWrite is 120 bytes; the helpers take it by reference
		switch w.Kind {
		case WriteEntry:
			var k EntryKind
			if kinds != nil {
				k = kinds[i]
			} else {
				k = KindOf(w.Entry.Raw)
			}
			m := s.metaOf(w, k) // before the id is the new entry's
			// a validated entry's id is new (HasEntryOrUsage): no read
			s.ids[w.Entry.ID] = idRef{kinds: idEntry, entry: int32(s.entries.len())}
			s.appendEntry(w, w.Seq, w.Timestamp, m)
		case WriteUsage:
			r := s.ids[w.Usage.ID]
			r.kinds |= idUsage
			s.ids[w.Usage.ID] = r
			s.usage.append(StoredUsage{Row: *w.Usage, Seq: w.Seq}) // folded by GetStats
		case WriteValue:
			if w.Op == OpDelete {
				s.deleteValue(w.Namespace, w.Key)
				break
			}
			s.setValue(w)
		case WriteList:
			if w.Op == OpDelete {
				s.deleteList(physicalListKey(w.Namespace, w.Key))
				break
			}
			s.appendList(w)
		}
		s.nextSeq = w.Seq + 1
	}
}

// ReserveEntries sizes the id map for n ids when it is still empty, so
// that a replay that knows roughly how many entries are coming does not
// rehash the map as it grows; otherwise it does nothing.
func (s *State) ReserveEntries(n int) {
	if len(s.ids) == 0 && n > 0 {
		s.ids = make(map[string]idRef, n)
	}
}

// reserveFor sizes the empty id map for writes' ids when they are more
// than one, and the entry rows for their entries: a session's first
// commit of many rows (a fork's copy, a seeded transcript) then fills the
// map without growing it step by step, each step a rehash of every id so
// far, and the rows without a chunk and a view per doubling.
func (s *State) reserveFor(writes []CommittedWrite) {
	n, entries := 0, 0
	for i := range writes {
		switch writes[i].Kind {
		case WriteEntry:
			n, entries = n+1, entries+1
		case WriteUsage:
			n++
		}
	}
	if n > 1 {
		s.ReserveEntries(n)
	}
	s.entries.reserve(entries)
	s.meta.reserve(entries)
}

// appendEntry stores w's entry, with seq and timestamp ts and meta m (its
// kind among them), whose id is already in ids.
func (s *State) appendEntry(w *CommittedWrite, seq, ts int64, m entryMeta) {
	s.entries.append(StoredEntry{Entry: *w.Entry, Seq: seq, Timestamp: ts})
	s.meta.append(m)
	if s.kinds.isMessage(m.kind) {
		s.stats.MessageCount++
	}
}

// ValidateApplyEntries is Validate and then, when the writes pass,
// ApplyKinds, for writes that are all entries (a replayed line of them);
// it reports Validate's error, in Validate's order, and then applies
// nothing. Rather than a transaction's own set of ids, each id goes into
// ids as it is checked (removed again on an error), an id already there
// showing as a map that did not grow, and a parent that is the entry
// before is matched by comparing strings: an entry costs two hash
// operations where Validate and ApplyKinds make five.
func (s *State) ValidateApplyEntries(writes []CommittedWrite, kinds []EntryKind) error {
	return s.validateApplyEntries(writes, kinds, stamp{})
}

// stamp is where a commit's writes take their seqs and timestamp from:
// their own (Prepare stamped them), or, counted, seq first+i for write i
// and timestamp ts (a Tx's writes, shared by every store it goes to).
type stamp struct {
	first, ts int64
	counted   bool
}

// of is write i's seq and timestamp.
func (p stamp) of(writes []CommittedWrite, i int) (seq, ts int64) {
	if p.counted {
		return p.first + int64(i), p.ts
	}
	return writes[i].Seq, writes[i].Timestamp
}

// validateApplyEntries is ValidateApplyEntries with the writes' seqs and
// timestamp taken as p says.
func (s *State) validateApplyEntries(writes []CommittedWrite, kinds []EntryKind, p stamp) error {
	prev := s.nextSeq - 1
	base := s.entries.len()
	for i := range writes {
		w := &writes[i]
		if w.Kind != WriteEntry {
			panic("store: ValidateApplyEntries given a " + string(w.Kind) + " write")
		}
		seq, _ := p.of(writes, i)
		if seq <= prev {
			s.unwindIDs(writes[:i])
			return &SeqError{Seq: seq}
		}
		prev = seq
		n := len(s.ids)
		s.ids[w.Entry.ID] = idRef{kinds: idEntry, entry: int32(base + i)}
		if len(s.ids) == n {
			s.restoreID(w.Entry.ID, base)
			s.unwindIDs(writes[:i])
			return &DuplicateIDError{ID: w.Entry.ID}
		}
		if err := s.checkParent(w, writes[:i], base); err != nil {
			s.unwindIDs(writes[:i+1])
			return err
		}
	}
	for i := range writes {
		w := &writes[i]
		seq, ts := p.of(writes, i)
		s.appendEntry(w, seq, ts, s.metaOf(w, kinds[i])) // the parent is in ids, or applied last
		s.nextSeq = seq + 1
	}
	return nil
}

// unwindIDs removes the ids of writes, each new when it went into ids.
func (s *State) unwindIDs(writes []CommittedWrite) {
	for j := range writes {
		delete(s.ids, writes[j].Entry.ID)
	}
}

// restoreID puts back what id named in the state's first base entries and
// its usage rows, after ValidateApplyEntries overwrote it: found by a
// scan, on this error path only. An id that named nothing there was the
// transaction's own, which unwindIDs removes.
func (s *State) restoreID(id string, base int) {
	var r idRef
	for i := range base {
		if s.entries.at(i).Entry.ID == id {
			r = idRef{kinds: idEntry, entry: int32(i)}
			break
		}
	}
	for i := range s.usage.len() {
		if s.usage.at(i).Row.ID == id {
			r.kinds |= idUsage
			break
		}
	}
	s.ids[id] = r
}

// checkParent is ValidateCommitted's parent rule for the entry write w,
// whose own id is already in ids (and was new), after the entry writes
// before (in ids too), of which the first would be entries[base].
func (s *State) checkParent(w *CommittedWrite, before []CommittedWrite, base int) error {
	if w.Entry.ParentID == nil {
		return nil
	}
	p := *w.Entry.ParentID
	switch {
	case p == w.Entry.ID: // not before it (the id was new): pi checks the parent before adding the id
	case len(before) > 0 && before[len(before)-1].Entry.ID == p:
		return nil
	case len(before) == 0 && base > 0 && s.entries.at(base-1).Entry.ID == p:
		return nil
	case s.ids[p].kinds&idEntry != 0:
		return nil
	}
	return &MissingParentError{ParentID: p}
}

// metaOf is the meta of w's entry, of kind k, about to be applied.
func (s *State) metaOf(w *CommittedWrite, k EntryKind) entryMeta {
	e := w.Entry
	m := entryMeta{kind: s.kinds.index(k), parent: noParent}
	if e.ParentID == nil {
		return m
	}
	if n := s.entries.len(); n > 0 && s.entries.at(n-1).Entry.ID == *e.ParentID {
		// a branch grows from the entry applied last: no hash lookup
		last := s.meta.at(n - 1)
		m.parent, m.depth = int32(n-1), last.depth+1
		return m
	}
	if p, ok := s.ids[*e.ParentID]; ok && p.kinds&idEntry != 0 {
		m.parent, m.depth = p.entry, s.meta.at(int(p.entry)).depth+1
		return m
	}
	m.parent = unresolvedParent
	s.unresolved++
	return m
}

// kindTable interns entry kinds: meta holds a kind's index, not its two
// strings.
type kindTable struct {
	all []EntryKind
	// messages has bit i set when all[i].IsMessage(), for the first 64
	// kinds (a session has a handful): read once per kind rather than once
	// per entry applied (pi's stats count message entries), and without
	// an allocation of its own
	messages uint64
	at       map[EntryKind]uint32
}

// isMessage reports whether kind i is a message: its bit, or past the
// first 64 kinds, the kind's own test.
func (t *kindTable) isMessage(i uint32) bool {
	if i < 64 {
		return t.messages&(1<<i) != 0
	}
	return t.all[i].IsMessage()
}

// smallKindTable is the most kinds searched one by one before a map.
const smallKindTable = 8

// index returns k's index, adding it when new.
func (t *kindTable) index(k EntryKind) uint32 {
	if n := len(t.all); n > 0 && t.all[n-1] == k {
		return uint32(n - 1) // a run of one kind, as a session's messages are
	}
	if t.at == nil {
		// a few kinds are searched: no map for a small session
		for i, o := range t.all {
			if o == k {
				return uint32(i)
			}
		}
	} else if i, ok := t.at[k]; ok {
		return i
	}
	i := uint32(len(t.all))
	t.all = append(t.all, k)
	if i < 64 && k.IsMessage() {
		t.messages |= 1 << i
	}
	if t.at == nil && len(t.all) > smallKindTable {
		t.at = make(map[EntryKind]uint32, 2*len(t.all))
		for j, o := range t.all {
			t.at[o] = uint32(j)
		}
	} else if t.at != nil {
		t.at[k] = i
	}
	return i
}

// setValue sets w's value.
func (s *State) setValue(w *CommittedWrite) {
	ns := s.values[w.Namespace]
	if ns == nil {
		ns = map[string]valueCell{}
		s.values[w.Namespace] = ns
	}
	ns[w.Key] = valueCell{value: w.Value, seq: w.Seq}
}

// deleteValue deletes the value at (namespace, key), and the namespace's
// map with its last value.
func (s *State) deleteValue(namespace, key string) {
	ns := s.values[namespace]
	if ns == nil {
		return
	}
	delete(ns, key)
	if len(ns) == 0 {
		delete(s.values, namespace)
	}
}

// appendList appends w's value to its list, creating the list (from the
// spare when there is one) on its first append.
func (s *State) appendList(w *CommittedWrite) {
	l := s.lastList
	if l == nil || l.addr.Namespace != w.Namespace || l.addr.Key != w.Key {
		// Only a miss needs the physical key, which may build a string.
		pk := physicalListKey(w.Namespace, w.Key)
		if l = s.lists[pk]; l == nil {
			l = s.newList(Address{Namespace: w.Namespace, Key: w.Key, Kind: KindList})
			s.lists[pk] = l
		}
		s.lastList = l
	}
	l.elements = append(l.elements, ListElement{Seq: w.Seq, Value: w.Value})
}

// newList returns an empty list at addr, reusing the spare's elements.
func (s *State) newList(addr Address) *listState {
	l := s.spare
	if l == nil {
		return &listState{addr: addr, elements: make([]ListElement, 0, 16)} // a response streams many frames
	}
	s.spare = nil
	l.addr = addr
	return l
}

// deleteList removes the list at pk and keeps it as the spare when its
// array is the larger. Its elements are cleared so that the spare holds
// no values alive.
func (s *State) deleteList(pk listKey) {
	s.lastList = nil
	l := s.lists[pk]
	if l == nil {
		return
	}
	delete(s.lists, pk)
	if s.spare == nil || cap(l.elements) > cap(s.spare.elements) {
		clear(l.elements)
		l.elements = l.elements[:0]
		s.spare = l
	}
}

// GetValue returns the value at addr, or nil when absent.
func (s *State) GetValue(addr Address) *StoredValue {
	c, ok := s.values[addr.Namespace][addr.Key]
	if !ok {
		return nil
	}
	v := c.stored(addr.Namespace, addr.Key)
	return &v
}

// ScanValues returns the values of namespace whose key starts with prefix,
// in ascending key order. Go compares strings bytewise, which for valid
// UTF-8 is code point order: exactly pi's compareKeys (which compares code
// points, not UTF-16 units). Addresses are required to be valid UTF-8.
func (s *State) ScanValues(namespace, prefix string) []StoredValue {
	out := []StoredValue{}
	for k, c := range s.values[namespace] {
		if strings.HasPrefix(k, prefix) {
			out = append(out, c.stored(namespace, k))
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Address.Key < out[j].Address.Key })
	return out
}

// ReadList pages the list at addr (pi's readList): exclusive cursor, order
// applied before the limit, an absent list is empty.
func (s *State) ReadList(addr Address, opts ReadOptions) ([]ListElement, error) {
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

// PageList applies a resolved read to elements in ascending seq order.
func PageList(elems []ListElement, r ResolvedRead) []ListElement {
	out := []ListElement{}
	if r.Order == Asc {
		start := 0
		if r.Cursor != nil {
			start = sort.Search(len(elems), func(i int) bool { return elems[i].Seq > *r.Cursor })
		}
		end := min(len(elems), start+r.Limit)
		return append(out, elems[start:end]...)
	}
	end := len(elems)
	if r.Cursor != nil {
		end = sort.Search(len(elems), func(i int) bool { return elems[i].Seq >= *r.Cursor })
	}
	for i := end - 1; i >= 0 && len(out) < r.Limit; i-- {
		out = append(out, elems[i])
	}
	return out
}

// Entries returns every entry in seq order.
func (s *State) Entries() []StoredEntry { return s.entries.clone() }

// Usage returns every usage row in seq order.
func (s *State) Usage() []StoredUsage { return s.usage.clone() }

// Snapshot returns every surviving record as a committed write, in seq order:
// entries, usage rows, live values (set with their seq) and list elements
// (one append per element). Replaying it into an empty state (after
// AdvanceNextSeq) reproduces this state; it is what compaction writes.
func (s *State) Snapshot() []CommittedWrite {
	n := s.entries.len() + s.usage.len()
	for _, keys := range s.values {
		n += len(keys)
	}
	for _, l := range s.lists {
		n += len(l.elements)
	}
	out := make([]CommittedWrite, 0, n)
	// The writes point into one copy of the entries and one of the usage
	// rows (a copy per row was an allocation per row): callers cannot
	// reach the state's own rows.
	entries, usage := s.entries.clone(), s.usage.clone()
	for i := range entries {
		e := &entries[i]
		out = append(out, CommittedWrite{Write: Write{Kind: WriteEntry, Entry: &e.Entry}, Seq: e.Seq, Timestamp: e.Timestamp})
	}
	for i := range usage {
		u := &usage[i]
		out = append(out, CommittedWrite{Write: Write{Kind: WriteUsage, Usage: &u.Row}, Seq: u.Seq})
	}
	for ns, keys := range s.values {
		for key, c := range keys {
			out = append(out, CommittedWrite{Write: Write{Kind: WriteValue, Op: OpSet, Namespace: ns, Key: key, Value: c.value}, Seq: c.seq})
		}
	}
	for _, l := range s.lists {
		for _, el := range l.elements {
			out = append(out, CommittedWrite{Write: Write{Kind: WriteList, Op: OpAppend, Namespace: l.addr.Namespace, Key: l.addr.Key, Value: el.Value}, Seq: el.Seq})
		}
	}
	sortBySeq(out)
	return out
}

// seqAt is a write's seq and its index before sorting.
type seqAt struct {
	seq int64
	at  int
}

// sortBySeq orders writes by seq (unique, so any sort gives the one order).
// It sorts (seq, index) pairs and then moves each write once: a write is
// 120 bytes with pointers, and sorting the writes themselves spent its
// time in swaps and their write barriers.
func sortBySeq(ws []CommittedWrite) {
	order := make([]seqAt, len(ws))
	for i := range ws {
		order[i] = seqAt{ws[i].Seq, i}
	}
	slices.SortFunc(order, func(a, b seqAt) int { return cmp.Compare(a.seq, b.seq) })
	// ws[k] becomes the old ws[order[k].at]: follow each cycle of that
	// permutation once, marking the places filled.
	for start := range order {
		if order[start].at < 0 || order[start].at == start {
			continue
		}
		first := ws[start]
		for k := start; ; {
			from := order[k].at
			order[k].at = -1
			if from == start {
				ws[k] = first
				break
			}
			ws[k], k = ws[from], from
		}
	}
}

// ListKeys returns the keys of namespace's non-empty lists in key order.
// (Storage has no list scan; tools that inspect a whole file need one.)
func (s *State) ListKeys(namespace string) []string {
	var out []string
	for _, l := range s.lists {
		if l.addr.Namespace == namespace && len(l.elements) > 0 {
			out = append(out, l.addr.Key)
		}
	}
	sort.Strings(out)
	return out
}
