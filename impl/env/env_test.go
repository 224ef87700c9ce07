package env

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/frameproof/frameproof/impl/env/envtest"
)

var uuidv7 = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

func TestUUIDv7FormatAndOrder(t *testing.T) {
	clock := envtest.NewClock(envtest.Epoch)
	ids := NewUUIDv7(clock, bytes.NewReader(bytes.Repeat([]byte{0xff}, 1024)))
	prev := ""
	for i := 0; i < 300; i++ {
		id := ids.NewID()
		require.Regexp(t, uuidv7, id)
		require.Greater(t, id, prev, "ids must increase within and across milliseconds")
		prev = id
		if i%100 == 99 {
			clock.Sleep(time.Millisecond)
		}
	}
	assert.Equal(t, "018bcfe5-6802", prev[:13], "timestamp prefix encodes Unix milliseconds (1_700_000_000_002 after two sleeps)")
}

func TestGoroutineFuture(t *testing.T) {
	f := Goroutines{}.NewFuture("f")
	assert.False(t, f.Done())
	Goroutines{}.Go("resolver", func() { f.Resolve(assert.AnError) })
	assert.ErrorIs(t, f.Wait(), assert.AnError)
	assert.True(t, f.Done())
	f.Resolve(nil)
	assert.ErrorIs(t, f.Wait(), assert.AnError, "only the first resolve counts")
}

func TestOSFSRoundTrip(t *testing.T) {
	dir := t.TempDir()
	var fsys FS = OSFS{}
	path := dir + "/a"
	ok, err := fsys.Exists(path)
	require.NoError(t, err)
	assert.False(t, ok)
	f, err := fsys.OpenAppend(path)
	require.NoError(t, err)
	_, err = f.Write([]byte("x\n"))
	require.NoError(t, err)
	require.NoError(t, f.Sync())
	require.NoError(t, f.Close())
	require.NoError(t, fsys.Rename(path, dir+"/b"))
	require.NoError(t, fsys.SyncDir(dir))
	got, err := fsys.ReadFile(dir + "/b")
	require.NoError(t, err)
	assert.Equal(t, "x\n", string(got))
	require.NoError(t, fsys.Remove(dir+"/b"))
}

// The largest limit reads the whole file: limit+1 must not overflow into
// a negative bound that reads nothing.
func TestReadFileAtMostLargestLimit(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	require.NoError(t, os.WriteFile(p, []byte("abc"), 0o644))
	b, err := OSFS{}.ReadFileAtMost(p, math.MaxInt64)
	require.NoError(t, err)
	require.Equal(t, "abc", string(b))
	_, err = OSFS{}.ReadFileAtMost(p, 2)
	require.ErrorIs(t, err, ErrTooLarge)
}
