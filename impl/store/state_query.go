package store

// pi's query surface on the shared State (in-memory-storage-state.ts),
// each served from an index the State keeps: entries by id through ids,
// entries and usage rows by seq through their seq-ordered rows (a page of
// the latest rows reads only that page), a branch walk one id lookup per
// step, and the totals kept as pi keeps them, folded at apply.

// entry returns the entry named id and its kind.
func (s *State) entry(id string) (StoredEntry, EntryKind, bool) {
	r, ok := s.ids[id]
	if !ok || r.kinds&idEntry == 0 {
		return StoredEntry{}, EntryKind{}, false
	}
	return *s.entries.at(int(r.entry)), s.kinds.all[s.meta.at(int(r.entry)).kind], true
}

// GetEntries is pi's getEntries: the entries among ids, each once, in the
// order of their first occurrence. Entries are told apart by their index
// in the state, not by hashing their ids again: while the indices found
// rise (as they do for ids in commit order) none can repeat, and only
// after one does not is a set of the indices built.
func (s *State) GetEntries(ids []string) []StoredEntry {
	out := make([]StoredEntry, 0, min(len(ids), s.entries.len()))
	last := int32(-1)
	var seen map[int32]struct{}
	for _, id := range ids {
		r, ok := s.ids[id]
		if !ok || r.kinds&idEntry == 0 {
			continue
		}
		switch {
		case seen == nil && r.entry > last:
			last = r.entry
		case seen == nil:
			seen = make(map[int32]struct{}, len(ids))
			for j := range out {
				seen[s.ids[out[j].Entry.ID].entry] = struct{}{}
			}
			fallthrough
		default:
			if _, dup := seen[r.entry]; dup {
				continue
			}
			seen[r.entry] = struct{}{}
		}
		out = append(out, *s.entries.at(int(r.entry)))
	}
	return out
}

// GetEntryKind returns the entry named id with its kind.
func (s *State) GetEntryKind(id string) (StoredEntry, EntryKind, bool) { return s.entry(id) }

// parentOf is the index of entry i's parent (noParent for a root).
func (s *State) parentOf(i int32) (int32, error) {
	p := s.meta.at(int(i)).parent
	if p != unresolvedParent {
		return p, nil
	}
	r, ok := s.ids[*s.entries.at(int(i)).Entry.ParentID]
	if !ok || r.kinds&idEntry == 0 {
		return 0, ErrCorruptBranch
	}
	return r.entry, nil
}

// branchHits is pi's scanBranch over the state's parent
// indices: it calls hit with the index of each entry the scan returns, in
// order. The path is the walk from q.Start to its root; the scan stops
// after the first entry that stops it, and the limit counts the entries
// that pass the filters. Newest first, the walk is the path's order, so
// entries are taken as the walk reaches them and a stop or the limit ends
// the walk (unless some parent is unresolved, whose absence pi reports
// even beyond a stop); oldest first, the path is walked into an index
// array (its length known from the start's depth) and read backwards.
func (s *State) branchHits(q *BranchScan, hit func(int32)) error {
	r, ok := s.ids[q.Start]
	if !ok || r.kinds&idEntry == 0 {
		return &UnknownBranchStartError{Start: q.Start}
	}
	oldest := q.Order == OldestFirst
	limit := sliceLimit(q.Limit)
	taken := int64(0)
	// take reads entry i of the path and reports whether the scan goes on.
	take := func(i int32) bool {
		if limit >= 0 && taken >= limit {
			return false
		}
		k := &s.kinds.all[s.meta.at(int(i)).kind]
		if matchOptional(k.Type, q.Type) && matchOptional(k.CustomType, q.CustomType) &&
			(q.Cursor == nil || cursorPasses(s.entries.at(int(i)).Seq, *q.Cursor, oldest)) {
			hit(i)
			taken++
		}
		if q.StopAtID != nil && s.entries.at(int(i)).Entry.ID == *q.StopAtID {
			return false
		}
		if q.StopAtType == nil {
			return k.Type != ""
		}
		return !jsonIs(k.Type, *q.StopAtType)
	}
	if !oldest && s.unresolved == 0 {
		for i := r.entry; take(i); {
			if i = s.meta.at(int(i)).parent; i == noParent {
				break
			}
		}
		return nil
	}
	path := make([]int32, 0, s.meta.at(int(r.entry)).depth+1)
	for i := r.entry; ; {
		path = append(path, i)
		p, err := s.parentOf(i)
		if err != nil {
			return err
		}
		if p == noParent {
			break
		}
		i = p
	}
	for k := range path {
		i := path[k]
		if oldest {
			i = path[len(path)-1-k]
		}
		if !take(i) {
			break
		}
	}
	return nil
}

// cursorPasses is pi's cursor filter: past the cursor in the scan's order.
func cursorPasses(seq, cursor int64, oldest bool) bool {
	if oldest {
		return seq > cursor
	}
	return seq < cursor
}

// branchCap is the capacity for a branch scan's result: the path's length
// (at most the limit) when every entry on it may be returned, else small.
func (s *State) branchCap(q *BranchScan) int {
	r, ok := s.ids[q.Start]
	if !ok || r.kinds&idEntry == 0 {
		return 0
	}
	n := int64(s.meta.at(int(r.entry)).depth) + 1
	if q.Type != nil || q.CustomType != nil || q.Cursor != nil || q.StopAtID != nil || q.StopAtType != nil {
		n = min(n, 16)
	}
	if l := sliceLimit(q.Limit); l >= 0 {
		n = min(n, l)
	}
	return int(n)
}

// ScanBranch is pi's scanBranch.
func (s *State) ScanBranch(q BranchScan) ([]StoredEntry, error) {
	out := make([]StoredEntry, 0, s.branchCap(&q))
	if err := s.branchHits(&q, func(i int32) { out = append(out, *s.entries.at(int(i))) }); err != nil {
		return nil, err
	}
	return out, nil
}

// ScanBranchStructure is pi's scanBranchStructure.
func (s *State) ScanBranchStructure(q BranchScan) ([]EntryStructure, error) {
	out := make([]EntryStructure, 0, s.branchCap(&q))
	if err := s.branchHits(&q, func(i int32) {
		e, k := s.entries.at(int(i)), &s.kinds.all[s.meta.at(int(i)).kind]
		out = append(out, EntryStructure{ID: e.Entry.ID, ParentID: e.Entry.ParentID, Seq: e.Seq, Timestamp: e.Timestamp,
			Type: k.Type, CustomType: k.CustomType})
	}); err != nil {
		return nil, err
	}
	return out, nil
}

// seqIndex is the first index in [0, n) whose seq is >= seq (n when none).
func seqIndex(n int, seqAt func(int) int64, seq int64) int {
	lo, hi := 0, n
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if seqAt(mid) < seq {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}

// seqRange is the index range [first, end) of the rows whose seqs lie in
// [lo, hi].
func seqRange(n int, seqAt func(int) int64, lo, hi int64) (int, int) {
	first := seqIndex(n, seqAt, lo)
	end := n
	if hi < 1<<62 {
		end = seqIndex(n, seqAt, hi+1)
	}
	return first, max(first, end)
}

// ScanEntries is pi's scanEntries: the seq bounds are found by binary
// search, then rows are read in order until the limit is met.
func (s *State) ScanEntries(q EntryScan) []StoredEntry {
	lo, hi, limit := SeqBounds(q.FromSeq, q.ToSeq, q.Limit)
	n := s.entries.len()
	seqAt := func(i int) int64 { return s.entries.at(i).Seq }
	first, end := seqRange(n, seqAt, lo, hi)
	capacity := end - first
	if limit >= 0 {
		capacity = int(min(int64(capacity), limit))
	}
	desc := q.Order == Desc
	if q.Type == nil && q.CustomType == nil {
		// every row in the range matches: the page is the first (or
		// last) capacity rows, copied as they are
		out := make([]StoredEntry, capacity)
		if !desc {
			s.entries.copyTo(out, first)
			return out
		}
		for k := range out {
			out[k] = *s.entries.at(end - 1 - k)
		}
		return out
	}
	out := make([]StoredEntry, 0, capacity)
	for k := 0; k < end-first; k++ {
		if limit >= 0 && int64(len(out)) >= limit {
			break
		}
		i := first + k
		if desc {
			i = end - 1 - k
		}
		if MatchesEntryScan(&q, s.entries.at(i).Seq, s.kinds.all[s.meta.at(i).kind]) {
			out = append(out, *s.entries.at(i))
		}
	}
	return out
}

// ScanUsage is pi's scanUsage.
func (s *State) ScanUsage(q UsageScan) []StoredUsage {
	lo, hi, limit := SeqBounds(q.FromSeq, q.ToSeq, q.Limit)
	n := s.usage.len()
	first, end := seqRange(n, func(i int) int64 { return s.usage.at(i).Seq }, lo, hi)
	count := end - first
	if limit >= 0 {
		count = int(min(int64(count), limit))
	}
	out := make([]StoredUsage, 0, count)
	for k := range count {
		i := first + k
		if q.Order == Desc {
			i = end - 1 - k
		}
		out = append(out, *s.usage.at(i))
	}
	return out
}

// GetStats is pi's getStats: the message count and usage totals, after
// folding the usage rows applied since the last call.
func (s *State) GetStats() SessionStats {
	for ; s.usageFolded < s.usage.len(); s.usageFolded++ {
		s.stats.Usage.AddUsageRow(s.usage.at(s.usageFolded).Row.Raw)
	}
	return s.stats
}
