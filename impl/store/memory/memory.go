// Package memory is the in-memory store backend (pi's MemoryStorage): the
// shared store.State behind a mutex, with one clock timestamp per commit.
package memory

import (
	"errors"
	"sync"

	"github.com/frameproof/frameproof/impl/env"
	"github.com/frameproof/frameproof/impl/store"
)

// ErrClosed is pi's MemoryStorage closed error.
var ErrClosed = errors.New("MemoryStorage is closed")

// Store is a store.Storage held entirely in memory.
type Store struct {
	clock env.Clock

	mu     sync.Mutex
	state  *store.State
	closed bool
}

var _ store.Storage = (*Store)(nil)

// New returns an empty store whose commit timestamps come from clock.
func New(clock env.Clock) *Store {
	return &Store{clock: clock, state: store.NewState()}
}

// FromState wraps an existing state (e.g. a fork snapshot); the store owns it.
func FromState(clock env.Clock, st *store.State) *Store {
	return &Store{clock: clock, state: st}
}

// Commit validates and applies writes all-or-none.
func (s *Store) Commit(writes []store.Write) (store.CommitResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return store.CommitResult{}, ErrClosed
	}
	return s.state.Commit(writes, s.clock.Now().UnixMilli())
}

var _ store.TxStorage = (*Store)(nil)

// CommitTx commits a prepared transaction all-or-none.
func (s *Store) CommitTx(tx *store.Tx) (store.CommitResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return store.CommitResult{}, ErrClosed
	}
	return s.state.CommitTx(tx, s.clock.Now().UnixMilli())
}

// GetValue returns the value at addr or nil.
func (s *Store) GetValue(addr store.Address) (*store.StoredValue, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, ErrClosed
	}
	return s.state.GetValue(addr), nil
}

// ScanValues returns namespace's values with keyPrefix in key order.
func (s *Store) ScanValues(namespace, keyPrefix string) ([]store.StoredValue, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, ErrClosed
	}
	return s.state.ScanValues(namespace, keyPrefix), nil
}

// ReadList pages a list.
func (s *Store) ReadList(addr store.Address, opts store.ReadOptions) ([]store.ListElement, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, ErrClosed
	}
	return s.state.ReadList(addr, opts)
}

// Entries returns every entry in seq order.
func (s *Store) Entries() ([]store.StoredEntry, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, ErrClosed
	}
	return s.state.Entries(), nil
}

// Usage returns every usage row in seq order.
func (s *Store) Usage() ([]store.StoredUsage, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, ErrClosed
	}
	return s.state.Usage(), nil
}

// NextSeq is the seq of the next write.
func (s *Store) NextSeq() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.state.NextSeq()
}

// Close makes later calls fail with ErrClosed. Closing twice is a no-op.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	return nil
}

var _ store.QueryStorage = (*Store)(nil)

// read runs f on the state unless the store is closed.
func read[T any](s *Store, f func(*store.State) (T, error)) (T, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		var zero T
		return zero, ErrClosed
	}
	return f(s.state)
}

// The entry queries lock and check the store themselves, not through
// read: a page of the latest entries costs less than the generic call and
// its closure did (a third of its time).
// They unlock in a defer, though that costs a page about 3 ns (the
// results live in memory rather than registers): the simulator recovers
// an actor's panic (sim/world actorMain), and a query that panicked with
// the lock held would leave every later call of the run waiting on it.

// GetEntries is pi's MemoryStorage.getEntries.
func (s *Store) GetEntries(ids []string) (store.EntryList, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return store.EntryList{}, ErrClosed
	}
	return s.state.GetEntries(ids), nil
}

// ScanBranch is pi's MemoryStorage.scanBranch.
func (s *Store) ScanBranch(q store.BranchScan) (store.EntryList, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return store.EntryList{}, ErrClosed
	}
	return s.state.ScanBranch(q)
}

// ScanBranchStructure is pi's MemoryStorage.scanBranchStructure.
func (s *Store) ScanBranchStructure(q store.BranchScan) (store.StructureList, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return store.StructureList{}, ErrClosed
	}
	return s.state.ScanBranchStructure(q)
}

// ScanEntries is pi's MemoryStorage.scanEntries.
func (s *Store) ScanEntries(q store.EntryScan) (store.EntryList, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return store.EntryList{}, ErrClosed
	}
	return s.state.ScanEntries(q), nil
}

// ScanUsage is pi's MemoryStorage.scanUsage.
func (s *Store) ScanUsage(q store.UsageScan) ([]store.StoredUsage, error) {
	return read(s, func(st *store.State) ([]store.StoredUsage, error) { return st.ScanUsage(q), nil })
}

// GetStats is pi's MemoryStorage.getStats.
func (s *Store) GetStats() (store.SessionStats, error) {
	return read(s, func(st *store.State) (store.SessionStats, error) { return st.GetStats(), nil })
}
