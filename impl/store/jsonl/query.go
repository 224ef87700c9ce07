package jsonl

import "github.com/frameproof/frameproof/impl/store"

// pi's JsonlStorage query surface (session/jsonl/storage.ts), served by the
// shared State as pi serves it from its InMemoryStorageState.

var _ store.QueryStorage = (*Store)(nil)

// query runs f on the state unless the store is closed.
func query[T any](s *Store, f func(*store.State) (T, error)) (T, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, err := s.read()
	if err != nil {
		var zero T
		return zero, err
	}
	return f(st)
}

// GetEntries is pi's JsonlStorage.getEntries.
func (s *Store) GetEntries(ids []string) ([]store.StoredEntry, error) {
	return query(s, func(st *store.State) ([]store.StoredEntry, error) { return st.GetEntries(ids), nil })
}

// ScanBranch is pi's JsonlStorage.scanBranch.
func (s *Store) ScanBranch(q store.BranchScan) ([]store.StoredEntry, error) {
	return query(s, func(st *store.State) ([]store.StoredEntry, error) { return st.ScanBranch(q) })
}

// ScanBranchStructure is pi's JsonlStorage.scanBranchStructure.
func (s *Store) ScanBranchStructure(q store.BranchScan) ([]store.EntryStructure, error) {
	return query(s, func(st *store.State) ([]store.EntryStructure, error) { return st.ScanBranchStructure(q) })
}

// ScanEntries is pi's JsonlStorage.scanEntries.
func (s *Store) ScanEntries(q store.EntryScan) ([]store.StoredEntry, error) {
	return query(s, func(st *store.State) ([]store.StoredEntry, error) { return st.ScanEntries(q), nil })
}

// ScanUsage is pi's JsonlStorage.scanUsage.
func (s *Store) ScanUsage(q store.UsageScan) ([]store.StoredUsage, error) {
	return query(s, func(st *store.State) ([]store.StoredUsage, error) { return st.ScanUsage(q), nil })
}

// GetStats is pi's JsonlStorage.getStats.
func (s *Store) GetStats() (store.SessionStats, error) {
	return query(s, func(st *store.State) (store.SessionStats, error) {
		stats := st.GetStats()
		if s.legacy != nil {
			// pi's withImportedUsage: a v3-backed store reports the usage
			// summed from its v3 records.
			stats.Usage = s.legacy.usage
		}
		return stats, nil
	})
}
