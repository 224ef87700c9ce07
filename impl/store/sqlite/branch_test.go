package sqlite

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/frameproof/frameproof/impl/env/envtest"
	"github.com/frameproof/frameproof/impl/store"
)

// TestBranchWalkReportsAMissingParent: the one-statement walk ends where
// a parent is missing (a database edited behind the store's back); pi's
// scanBranch throws "Corrupt branch: missing parent" there, and the
// step-by-step walk answers as the statement does.
func TestBranchWalkReportsAMissingParent(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "b.db"), envtest.NewTickClock(0), Options{Sync: SyncNever})
	require.NoError(t, err)
	defer func() { require.NoError(t, s.Close()) }()
	entry := func(id, parent string) store.Write {
		p, pj := &parent, `"`+parent+`"`
		if parent == "" {
			p, pj = nil, "null"
		}
		return store.InsertEntry(store.Entry{ID: id, ParentID: p, Raw: json.RawMessage(`{"id":"` + id + `","parentId":` + pj + `,"type":"message"}`)})
	}
	_, err = s.Commit([]store.Write{entry("root", ""), entry("mid", "root"), entry("leaf", "mid")})
	require.NoError(t, err)
	got, err := s.ScanBranch(store.BranchScan{Start: "leaf", Order: store.OldestFirst})
	require.NoError(t, err)
	require.Equal(t, 3, got.Len())
	assert.Equal(t, "root", got.At(0).Entry.ID)

	_, err = s.conn.ExecContext(context.Background(), `DELETE FROM entries WHERE id = 'mid'`)
	require.NoError(t, err)
	_, err = s.ScanBranch(store.BranchScan{Start: "leaf"})
	assert.EqualError(t, err, "Corrupt branch: missing parent")
	_, err = s.ScanBranchStructure(store.BranchScan{Start: "nope"})
	assert.EqualError(t, err, "Unknown branch start: nope")
	require.NoError(t, s.conn.Raw(func(any) error {
		path, missing, err := s.walkByStep("leaf")
		require.NoError(t, err)
		assert.Len(t, path, 1)
		assert.True(t, missing)
		path, missing, err = s.walkByStep("root")
		require.NoError(t, err)
		assert.Len(t, path, 1)
		assert.False(t, missing)
		return nil
	}))
}
