package memory

import (
	"github.com/frameproof/frameproof/impl/env"
	"github.com/frameproof/frameproof/impl/store"
	"github.com/frameproof/frameproof/impl/store/fork"
)

// CaptureForkSource is pi's MemoryStorage.captureForkSource: the entries
// and scalar values at one boundary between commits (commits hold the same
// lock).
func (s *Store) CaptureForkSource() (fork.Source, error) {
	return read(s, func(st *store.State) (fork.Source, error) {
		entries, values := st.ForkSource()
		return fork.Source{Entries: entries, Values: values}, nil
	})
}

// FromForkSnapshot is pi's MemoryStorage.fromSnapshot: a new store holding
// a fork destination's state.
func FromForkSnapshot(clock env.Clock, snap fork.Snapshot) (*Store, error) {
	st, err := snap.State()
	if err != nil {
		return nil, err
	}
	return FromState(clock, st), nil
}
