package store

// The two queries a lane reads its transcript and its entries with, on any
// Storage: the store's own, served from its indexes, when it has them; read
// from every entry when it is a wrapper that does not pass them on (the
// fault layers' and tests' Storage wrappers, which wrap Storage alone).

// EntryGetter is a Storage's getEntries.
type EntryGetter interface {
	GetEntries(ids []string) (EntryList, error)
}

// BranchScanner is a Storage's scanBranch.
type BranchScanner interface {
	ScanBranch(q BranchScan) (EntryList, error)
}

// GetEntriesOf is pi's getEntries on st.
func GetEntriesOf(st Storage, ids []string) (EntryList, error) {
	if g, ok := st.(EntryGetter); ok {
		return g.GetEntries(ids)
	}
	all, err := st.Entries()
	if err != nil {
		return EntryList{}, err
	}
	want := make(map[string]int, len(ids)) // id → its entry, -1 until found
	for _, id := range ids {
		want[id] = -1
	}
	for i := range all {
		if j, ok := want[all[i].Entry.ID]; ok && j < 0 {
			want[all[i].Entry.ID] = i
		}
	}
	out := []StoredEntry{}
	for _, id := range ids {
		if j := want[id]; j >= 0 {
			out = append(out, all[j])
			want[id] = -1 // each entry once
		}
	}
	return EntriesOf(out), nil
}

// ScanBranchOf is pi's scanBranch on st.
func ScanBranchOf(st Storage, q BranchScan) (EntryList, error) {
	if s, ok := st.(BranchScanner); ok {
		return s.ScanBranch(q)
	}
	all, err := st.Entries()
	if err != nil {
		return EntryList{}, err
	}
	byID := make(map[string]int, len(all))
	for i := range all {
		if _, dup := byID[all[i].Entry.ID]; !dup {
			byID[all[i].Entry.ID] = i
		}
	}
	i, ok := byID[q.Start]
	if !ok {
		return EntryList{}, &UnknownBranchStartError{Start: q.Start}
	}
	var path []BranchHit
	for {
		e := all[i]
		path = append(path, BranchHit{Entry: e, Kind: KindOf(e.Entry.Raw)})
		if e.Entry.ParentID == nil {
			break
		}
		if i, ok = byID[*e.Entry.ParentID]; !ok || len(path) > len(all) {
			return EntryList{}, ErrCorruptBranch // a missing parent, or a cycle
		}
	}
	hits := FilterBranch(q, path)
	out := make([]StoredEntry, len(hits))
	for k, h := range hits {
		out[k] = h.Entry
	}
	return EntriesOf(out), nil
}
