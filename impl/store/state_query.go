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
func (s *State) GetEntries(ids []string) EntryList {
	pos := make([]int32, 0, min(len(ids), s.entries.len()))
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
			for _, p := range pos {
				seen[p] = struct{}{}
			}
			fallthrough
		default:
			if _, dup := seen[r.entry]; dup {
				continue
			}
			seen[r.entry] = struct{}{}
		}
		pos = append(pos, r.entry)
	}
	return s.listOf(pos)
}

// listOf is the list of the entries at pos, read in place.
func (s *State) listOf(pos []int32) EntryList {
	return EntryList{rows: s.entries.view, pos: &pos, span: spanOf(0, len(pos), false)}
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

// branchRows is pi's scanBranch over the state's parent indices: the
// rows of the entries the scan returns, in order. The path is the walk
// from q.Start to its root; the scan stops after the first entry that
// stops it, and the limit counts the entries that pass the filters.
// Newest first, the walk is the path's order, so entries are taken as the
// walk reaches them and a stop or the limit ends the walk (unless some
// parent is unresolved, whose absence pi reports even beyond a stop);
// oldest first, the path is walked into an index array (its length known
// from the start's depth) and read backwards.
func (s *State) branchRows(q *BranchScan) ([]int32, error) {
	r, ok := s.ids[q.Start]
	if !ok || r.kinds&idEntry == 0 {
		return nil, &UnknownBranchStartError{Start: q.Start}
	}
	oldest := q.Order == OldestFirst
	limit := sliceLimit(q.Limit)
	pos := make([]int32, 0, s.branchCap(q, r.entry, limit))
	if !oldest && s.unresolved == 0 && q.unfiltered() {
		return s.walkUnfiltered(pos, r.entry, limit), nil
	}
	// take reads entry i of the path and reports whether the scan goes on.
	take := func(i int32) bool {
		if limit >= 0 && int64(len(pos)) >= limit {
			return false
		}
		k := &s.kinds.all[s.meta.at(int(i)).kind]
		if matchOptional(k.Type, q.Type) && matchOptional(k.CustomType, q.CustomType) &&
			(q.Cursor == nil || cursorPasses(s.entries.at(int(i)).Seq, *q.Cursor, oldest)) {
			pos = append(pos, i)
		}
		return !stopsAt(s.entries.at(int(i)).Entry.ID, *k, q)
	}
	if !oldest && s.unresolved == 0 {
		for i := r.entry; take(i); {
			if i = s.meta.at(int(i)).parent; i == noParent {
				break
			}
		}
		return pos, nil
	}
	path := make([]int32, 0, s.meta.at(int(r.entry)).depth+1)
	for i := r.entry; ; {
		path = append(path, i)
		p, err := s.parentOf(i)
		if err != nil {
			return nil, err
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
	return pos, nil
}

// unfiltered: the scan has no filter, cursor or named stop, so it returns
// its path up to the limit or an entry without a type (which stops it).
func (q *BranchScan) unfiltered() bool {
	return q.Type == nil && q.CustomType == nil && q.Cursor == nil && q.StopAtID == nil && q.StopAtType == nil
}

// walkUnfiltered is an unfiltered scan newest first from entry i, the
// walk take does for such a scan without its per-entry checks: a session's
// transcript (and pi's scanBranchStructure benchmark) reads every entry of
// its branch this way.
func (s *State) walkUnfiltered(pos []int32, i int32, limit int64) []int32 {
	chunks, kinds := s.meta.view.chunks, s.kinds.all
	for {
		// A parent is most often the row before: the walk finds a row's
		// chunk once and follows parents within it, one load a step.
		k := chunkOf(int(i))
		c, base := chunks[k], int32(chunkStart(k))
		for {
			if int64(len(pos)) == limit {
				return pos
			}
			pos = append(pos, i)
			m := &c[i-base]
			if m.parent == noParent || kinds[m.kind].Type == "" {
				return pos
			}
			if i = m.parent; i < base || i-base >= int32(len(c)) {
				break
			}
		}
	}
}

// cursorPasses is pi's cursor filter: past the cursor in the scan's order.
func cursorPasses(seq, cursor int64, oldest bool) bool {
	if oldest {
		return seq > cursor
	}
	return seq < cursor
}

// branchCap is the capacity for the result of a branch scan from entry
// start: the path's length (at most the limit) when every entry on it may
// be returned, else small.
func (s *State) branchCap(q *BranchScan, start int32, limit int64) int {
	n := int64(s.meta.at(int(start)).depth) + 1
	if !q.unfiltered() {
		n = min(n, 16)
	}
	if limit >= 0 {
		n = min(n, limit)
	}
	return int(n)
}

// ScanBranch is pi's scanBranch.
func (s *State) ScanBranch(q BranchScan) (EntryList, error) {
	pos, err := s.branchRows(&q)
	if err != nil {
		return EntryList{}, err
	}
	return s.listOf(pos), nil
}

// ScanBranchStructure is pi's scanBranchStructure: the entries' structures
// are made from the rows as a caller reads them.
func (s *State) ScanBranchStructure(q BranchScan) (StructureList, error) {
	pos, err := s.branchRows(&q)
	if err != nil {
		return StructureList{}, err
	}
	return StructureList{entries: s.listOf(pos), meta: s.meta.view, kinds: s.kinds.all}, nil
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
// A bound at or past an end is that end without a search: a page of the
// latest rows (no bounds) reads two seqs, not 2·log2(n).
func seqRange(n int, seqAt func(int) int64, lo, hi int64) (int, int) {
	first, end := 0, n
	if n > 0 && lo > seqAt(0) {
		first = seqIndex(n, seqAt, lo)
	}
	if n > 0 && hi < seqAt(n-1) {
		end = seqIndex(n, seqAt, hi+1)
	}
	return first, max(first, end)
}

// ScanEntries is pi's scanEntries: the seq bounds are found by binary
// search, then rows are read in order until the limit is met. Without a
// kind filter every row in the bounds matches, and the page is a range.
func (s *State) ScanEntries(q EntryScan) EntryList {
	lo, hi, limit := SeqBounds(q.FromSeq, q.ToSeq, q.Limit)
	seqAt := func(i int) int64 { return s.entries.at(i).Seq }
	first, end := seqRange(s.entries.len(), seqAt, lo, hi)
	count := end - first
	if limit >= 0 {
		count = int(min(int64(count), limit))
	}
	desc := q.Order == Desc
	if q.Type == nil && q.CustomType == nil {
		if desc {
			first = end - 1
		}
		return EntryList{rows: s.entries.view, span: spanOf(first, count, desc)}
	}
	pos := make([]int32, 0, min(count, 16))
	for k := 0; k < end-first && len(pos) < count; k++ {
		i := first + k
		if desc {
			i = end - 1 - k
		}
		if MatchesEntryScan(&q, s.entries.at(i).Seq, s.kinds.all[s.meta.at(i).kind]) {
			pos = append(pos, int32(i))
		}
	}
	return s.listOf(pos)
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
