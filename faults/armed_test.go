package faults

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/frameproof/frameproof/impl/env"
)

// Each armed fault fails exactly the next call it names, on the real file
// system, leaving what it says on disk; then the file system is healthy.
func TestArmedFaultsFireOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	a := NewArmed(env.OSFS{})
	f, err := a.OpenAppend(path)
	require.NoError(t, err)
	defer f.Close()

	require.NoError(t, a.Arm(FaultWrite))
	n, err := f.Write([]byte("abcd"))
	assert.Equal(t, 0, n)
	assert.True(t, errors.Is(err, ErrInjected), "%v", err)
	require.NoError(t, a.Arm(FaultShortWrite))
	n, err = f.Write([]byte("efgh"))
	assert.Equal(t, 2, n)
	assert.True(t, errors.Is(err, ErrInjected), "%v", err)
	require.NoError(t, a.Arm(FaultSync))
	_, err = f.Write([]byte("ij"))
	require.NoError(t, err, "a sync fault leaves writes alone")
	assert.True(t, errors.Is(f.Sync(), ErrInjected))
	require.NoError(t, f.Sync(), "a fault fires once")

	got, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "efij", string(got))
	assert.ErrorContains(t, a.Arm("disk-on-fire"), `unknown fault "disk-on-fire"`)
}
