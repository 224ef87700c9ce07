package sqlite

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/frameproof/frameproof/impl/env/envtest"
)

// prepareAll fails on a statement that does not parse, leaving none of
// the others prepared, and prepares every statement of a good list.
func TestPrepareAll(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "p.db"), envtest.NewTickClock(0), Options{Sync: SyncNever})
	require.NoError(t, err)
	defer func() { require.NoError(t, s.Close()) }()
	require.NoError(t, s.conn.Raw(func(dc any) error {
		got, err := prepareAll(dc, []string{`SELECT 1`, `NOT SQL`})
		require.Error(t, err)
		require.Nil(t, got)
		got, err = prepareAll(dc, recycleSQL)
		require.NoError(t, err)
		require.Len(t, got, len(recycleSQL))
		for _, p := range got {
			require.NoError(t, p.close())
		}
		return nil
	}))
}
