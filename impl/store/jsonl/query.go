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

// The entry queries lock and read the state themselves, not through
// query: a page of the latest entries costs less than the generic call
// and its closure did (nearly half of its time).
// They unlock in a defer, though that costs a page about 3 ns (the
// results live in memory rather than registers): the simulator recovers
// an actor's panic (sim/world actorMain), and a query that panicked with
// the lock held would leave every later call of the run waiting on it.

// GetEntries is pi's JsonlStorage.getEntries.
func (s *Store) GetEntries(ids []string) (store.EntryList, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, err := s.read()
	if err != nil {
		return store.EntryList{}, err
	}
	return st.GetEntries(ids), nil
}

// ScanBranch is pi's JsonlStorage.scanBranch.
func (s *Store) ScanBranch(q store.BranchScan) (store.EntryList, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, err := s.read()
	if err != nil {
		return store.EntryList{}, err
	}
	return st.ScanBranch(q)
}

// ScanBranchStructure is pi's JsonlStorage.scanBranchStructure.
func (s *Store) ScanBranchStructure(q store.BranchScan) (store.StructureList, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, err := s.read()
	if err != nil {
		return store.StructureList{}, err
	}
	return st.ScanBranchStructure(q)
}

// ScanEntries is pi's JsonlStorage.scanEntries.
func (s *Store) ScanEntries(q store.EntryScan) (store.EntryList, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, err := s.read()
	if err != nil {
		return store.EntryList{}, err
	}
	return st.ScanEntries(q), nil
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
