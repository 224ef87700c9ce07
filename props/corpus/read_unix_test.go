//go:build unix

package corpus

import (
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

// A FIFO among the vector files is refused by name instead of blocking the
// run on a read that never ends.
func TestCorpusFileMustBeRegular(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "stuck.jsonl")
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))
	_, err := readCodecFile(fifo)
	require.ErrorContains(t, err, fifo+": not a regular file")
	_, err = ReadReplayVector(fifo)
	require.ErrorContains(t, err, "not a regular file")
}
