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
	return *s.entries.at(int(r.entry)), *s.kinds.at(int(r.entry)), true
}

// GetEntries is pi's getEntries: the entries among ids, each once, in the
// order of their first occurrence.
func (s *State) GetEntries(ids []string) []StoredEntry {
	out := []StoredEntry{}
	var seen map[string]bool
	for _, id := range ids {
		e, _, ok := s.entry(id)
		if !ok {
			continue
		}
		if len(ids) > 1 {
			if seen == nil {
				seen = map[string]bool{}
			}
			if seen[id] {
				continue
			}
			seen[id] = true
		}
		out = append(out, e)
	}
	return out
}

// GetEntryKind returns the entry named id with its kind.
func (s *State) GetEntryKind(id string) (StoredEntry, EntryKind, bool) { return s.entry(id) }

func (s *State) walk(q BranchScan) ([]BranchHit, error) {
	return WalkBranch(q, func(id string) (StoredEntry, EntryKind, bool, error) {
		e, k, ok := s.entry(id)
		return e, k, ok, nil
	})
}

// ScanBranch is pi's scanBranch.
func (s *State) ScanBranch(q BranchScan) ([]StoredEntry, error) {
	hits, err := s.walk(q)
	if err != nil {
		return nil, err
	}
	out := make([]StoredEntry, len(hits))
	for i, h := range hits {
		out[i] = h.Entry
	}
	return out, nil
}

// ScanBranchStructure is pi's scanBranchStructure.
func (s *State) ScanBranchStructure(q BranchScan) ([]EntryStructure, error) {
	hits, err := s.walk(q)
	if err != nil {
		return nil, err
	}
	out := make([]EntryStructure, len(hits))
	for i, h := range hits {
		out[i] = Structure(h.Entry, h.Kind)
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
	out := make([]StoredEntry, 0, capacity)
	desc := q.Order == Desc
	for k := 0; k < end-first; k++ {
		if limit >= 0 && int64(len(out)) >= limit {
			break
		}
		i := first + k
		if desc {
			i = end - 1 - k
		}
		if MatchesEntryScan(&q, s.entries.at(i).Seq, *s.kinds.at(i)) {
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

// GetStats is pi's getStats: the message count and usage totals.
func (s *State) GetStats() SessionStats { return s.stats }
