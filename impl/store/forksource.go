package store

import "slices"

// ForkSource returns what pi's captureForkSource captures
// (InMemoryStorageState.snapshotEntriesAndValues): every entry in seq order
// and every scalar value. pi lists the values in its Map's insertion order
// (a key keeps its place when set again, and moves to the end when deleted
// and set again); the state keeps no insertion order, so they come in seq
// order (last set), which differs from pi's only for a value set more than
// once, and then only in the seqs a fork gives the copies.
func (s *State) ForkSource() ([]StoredEntry, []StoredValue) {
	n := 0
	for _, keys := range s.values {
		n += len(keys)
	}
	values := make([]StoredValue, 0, n)
	for ns, keys := range s.values {
		for key, c := range keys {
			values = append(values, c.stored(ns, key))
		}
	}
	slices.SortFunc(values, func(a, b StoredValue) int {
		switch {
		case a.Seq < b.Seq:
			return -1
		case a.Seq > b.Seq:
			return 1
		}
		return 0
	})
	return s.Entries(), values
}
