package sqlite_test

import (
	"fmt"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/frameproof/frameproof/impl/env/envtest"
	"github.com/frameproof/frameproof/impl/store"
	"github.com/frameproof/frameproof/impl/store/sqlite"
	"github.com/frameproof/frameproof/impl/store/storetest"
)

// TestConformance runs the shared store conformance suite (a rapid state
// machine against an independent reference, with reopens) on SQLite.
func TestConformance(t *testing.T) {
	dir := t.TempDir()
	var n atomic.Int64
	open := func(t *testing.T) store.Storage {
		path := filepath.Join(dir, fmt.Sprintf("c%d.db", n.Add(1)))
		s, err := sqlite.Open(path, envtest.NewTickClock(0), sqlite.Options{Sync: sqlite.SyncNever})
		require.NoError(t, err)
		return s
	}
	reopen := func(t *testing.T, s store.Storage) store.Storage {
		db := s.(*sqlite.Store)
		require.NoError(t, db.Close())
		s2, err := sqlite.Open(db.Path(), envtest.NewTickClock(1<<40), sqlite.Options{Sync: sqlite.SyncNever})
		require.NoError(t, err)
		return s2
	}
	storetest.RunWithReopen(t, open, reopen)
}

// TestConformanceInMemory runs the suite on InMemory databases; a reopen
// opens the new store before closing the old one, which keeps the database.
func TestConformanceInMemory(t *testing.T) {
	dir := t.TempDir()
	var n atomic.Int64
	mem := sqlite.Options{Sync: sqlite.SyncNever, InMemory: true}
	open := func(t *testing.T) store.Storage {
		s, err := sqlite.Open(filepath.Join(dir, fmt.Sprintf("m%d.db", n.Add(1))), envtest.NewTickClock(0), mem)
		require.NoError(t, err)
		return s
	}
	reopen := func(t *testing.T, s store.Storage) store.Storage {
		db := s.(*sqlite.Store)
		s2, err := sqlite.Open(db.Path(), envtest.NewTickClock(1<<40), mem)
		require.NoError(t, err)
		require.NoError(t, db.Close())
		return s2
	}
	storetest.RunWithReopen(t, open, reopen)
}
