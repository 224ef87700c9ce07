package corpus

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// A file over the bound is refused by name, not read whole.
func TestCorpusFileIsBounded(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big.jsonl")
	f, err := os.Create(path)
	require.NoError(t, err)
	require.NoError(t, f.Truncate(maxCorpusFile+1)) // sparse: no disk used
	require.NoError(t, f.Close())
	_, err = readCodecFile(path)
	require.ErrorContains(t, err, path+": larger than")
}
