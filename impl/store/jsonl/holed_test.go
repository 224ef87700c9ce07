package jsonl

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/frameproof/frameproof/impl/store"
)

// A crash that writes an append's blocks out of order can leave a hole of
// zeros before the line's surviving newline. pi rejects such a file
// (session/jsonl/storage.ts, JsonlStorage.open: a complete line that is not
// valid JSON is "Invalid JSONL storage"); RepairHoledTail truncates it like
// a torn tail, and only the final line.
func TestHoledFinalLine(t *testing.T) {
	m := newMemFS()
	s := newStore(t, m, Options{Sync: SyncNever})
	_, err := s.Commit([]store.Write{app(t, "a")})
	require.NoError(t, err)
	good := m.content(path)
	_, err = s.Commit([]store.Write{app(t, "b")})
	require.NoError(t, err)
	require.NoError(t, s.Close())
	full := m.content(path)
	holed := append([]byte(nil), full...)
	for i := len(good); i < len(good)+(len(full)-len(good))/2; i++ {
		holed[i] = 0 // the first half of the last line never reached the disk
	}

	m.put(path, holed)
	_, err = Open(testEnv(m), path, Options{})
	var se *StorageError
	require.ErrorAs(t, err, &se, "pi's behaviour: a holed final line is corrupt")
	require.Equal(t, 3, se.Line)

	m.put(path, holed)
	r, err := Open(testEnv(m), path, Options{RepairHoledTail: true})
	require.NoError(t, err)
	require.Equal(t, string(good), string(m.content(path)), "the holed line is truncated")
	els, err := r.ReadList(frames.Address, store.ReadOptions{})
	require.NoError(t, err)
	require.Len(t, els, 1)
	require.NoError(t, r.Close())

	// A hole in an earlier line is corruption even with the option.
	mid := append([]byte(nil), full...)
	mid[len(good)-3] = 0
	m.put(path, mid)
	_, err = Open(testEnv(m), path, Options{RepairHoledTail: true})
	require.ErrorAs(t, err, &se)
	require.Equal(t, 2, se.Line)
}
