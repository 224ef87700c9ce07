package faults

import (
	"bytes"
	"errors"
	"io/fs"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/frameproof/frameproof/sim/choice"
)

// mustWrite writes s to f and fails the test on error.
func mustWrite(t testing.TB, f interface{ Write([]byte) (int, error) }, s string) {
	t.Helper()
	n, err := f.Write([]byte(s))
	require.NoError(t, err)
	require.Equal(t, len(s), n)
}

// outcomes runs setup on a fresh FS for every crash decision sequence and
// collects what ReadFile returns for path afterwards ("<absent>" when gone).
func outcomes(t *testing.T, opts Options, path string, setup func(f *FS)) (map[string]bool, int) {
	t.Helper()
	seen := map[string]bool{}
	runs, complete := choice.Enumerate(100000, func(c choice.Source) {
		f := NewFSWith(choice.Fixed(0), opts)
		setup(f)
		f.CrashWith(c)
		got, err := f.ReadFile(path)
		if errors.Is(err, fs.ErrNotExist) {
			seen["<absent>"] = true
			return
		}
		require.NoError(t, err)
		seen[string(got)] = true
	})
	require.True(t, complete, "enumeration did not finish")
	return seen, runs
}

func keys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func TestWritesArePendingUntilSync(t *testing.T) {
	f := NewFS(choice.Fixed(0))
	h, err := f.Create("/d.jsonl")
	require.NoError(t, err)
	mustWrite(t, h, "abc")
	got, err := f.ReadFile("/d.jsonl")
	require.NoError(t, err)
	assert.Equal(t, "abc", string(got), "reads see the page cache")
	_, ok := f.Durable("/d.jsonl")
	assert.False(t, ok, "an unsynced create is not durable")

	require.NoError(t, h.Sync())
	_, ok = f.Durable("/d.jsonl")
	assert.False(t, ok, "file fsync does not make the name durable")
	require.NoError(t, f.SyncDir("/"))
	d, ok := f.Durable("/d.jsonl")
	require.True(t, ok)
	assert.Equal(t, "abc", string(d))

	mustWrite(t, h, "def")
	d, _ = f.Durable("/d.jsonl")
	assert.Equal(t, "abc", string(d))
	dataOps, dirOps := f.Pending("/d.jsonl")
	assert.Equal(t, 1, dataOps)
	assert.Equal(t, 0, dirOps)

	f.Crash() // choice.Fixed(0): everything pending is lost
	got, err = f.ReadFile("/d.jsonl")
	require.NoError(t, err)
	assert.Equal(t, "abc", string(got))
	_, err = h.Write([]byte("x"))
	assert.ErrorIs(t, err, ErrCrashed, "handles from before the crash are dead")
}

func TestTornWriteEnumeratesEveryPrefix(t *testing.T) {
	seen, runs := outcomes(t, Options{Tear: true}, "/f", func(f *FS) {
		f.WriteDurable("/f", []byte("x"))
		h, _ := f.OpenAppend("/f")
		mustWrite(t, h, "abc")
	})
	assert.Equal(t, []string{"x", "xa", "xab", "xabc"}, keys(seen))
	assert.Equal(t, 4, runs, "k=0 × torn∈{0,1,2} plus k=1")
}

func TestCrashKeepsAnOrderedPrefixOfWrites(t *testing.T) {
	seen, _ := outcomes(t, Options{}, "/f", func(f *FS) {
		f.WriteDurable("/f", nil)
		h, _ := f.OpenAppend("/f")
		mustWrite(t, h, "a\n")
		mustWrite(t, h, "b\n")
		mustWrite(t, h, "c\n")
	})
	assert.Equal(t, []string{"", "a\n", "a\nb\n", "a\nb\nc\n"}, keys(seen), "never b without a")
}

func TestJunkTails(t *testing.T) {
	seen, _ := outcomes(t, Options{Tear: true, ZeroTail: true, GarbageTail: true}, "/f", func(f *FS) {
		f.WriteDurable("/f", []byte("ok\n"))
		h, _ := f.OpenAppend("/f")
		mustWrite(t, h, "{\"a\":1}\n")
	})
	var zeros, garbage int
	for s := range seen {
		require.True(t, strings.HasPrefix(s, "ok\n"), "durable bytes survive: %q", s)
		require.LessOrEqual(t, len(s), len("ok\n{\"a\":1}\n"), "junk stays within the write's extent")
		tail := s[3:]
		if strings.Contains(tail, "\x00") {
			zeros++
		}
		if tail != "" && !strings.HasPrefix("{\"a\":1}\n", tail) && !strings.Contains(tail, "\x00") {
			garbage++
		}
		if tail != "{\"a\":1}\n" {
			assert.NotContains(t, tail, "\n", "garbage never forms a complete line by default")
		}
	}
	assert.Positive(t, zeros)
	assert.Positive(t, garbage)
}

func TestGarbageNewlinesOption(t *testing.T) {
	opts := Options{Tear: true, GarbageTail: true, GarbageNewlines: true}
	found := false
	for seed := uint32(1); seed < 4000 && !found; seed += 2 {
		found = bytes.Contains(garbage(seed, 64, true), []byte("\n"))
	}
	assert.True(t, found, "newline garbage is possible when enabled")
	assert.True(t, opts.GarbageNewlines)
	for seed := uint32(1); seed < 4000; seed += 2 {
		require.NotContains(t, string(garbage(seed, 64, false)), "\n")
	}
}

func TestSyncedDataSurvivesEveryCrash(t *testing.T) {
	seen, runs := outcomes(t, AllFaults, "/d/f", func(f *FS) {
		require.NoError(t, f.MkdirAll("/d"))
		h, _ := f.Create("/d/f")
		mustWrite(t, h, "synced\n")
		require.NoError(t, h.Sync())
		require.NoError(t, f.SyncDir("/d"))
		mustWrite(t, h, "more\n")
		mustWrite(t, h, "x\n")
	})
	assert.Greater(t, runs, 10)
	for s := range seen {
		require.True(t, strings.HasPrefix(s, "synced\n"), "lost synced data: %q", s)
	}
	assert.True(t, seen["synced\n"])
	assert.True(t, seen["synced\nmore\nx\n"])
}

func TestUnsyncedCreateMayVanish(t *testing.T) {
	seen, _ := outcomes(t, AllFaults, "/f", func(f *FS) {
		h, _ := f.Create("/f")
		mustWrite(t, h, "a")
		require.NoError(t, h.Sync()) // data synced, name not
	})
	assert.Equal(t, []string{"<absent>", "a"}, keys(seen))

	seen, _ = outcomes(t, Options{Tear: true, LoseDirOps: true}, "/f", func(f *FS) {
		h, _ := f.Create("/f")
		mustWrite(t, h, "a")
		require.NoError(t, f.SyncDir("/")) // name synced, data not
	})
	assert.Equal(t, []string{"", "a"}, keys(seen), "the synced name survives, maybe empty")
}

func TestUnsyncedRenameMayBeLost(t *testing.T) {
	setup := func(syncTmp bool) func(f *FS) {
		return func(f *FS) {
			f.WriteDurable("/s.jsonl", []byte("old"))
			h, _ := f.Create("/s.jsonl.tmp")
			mustWrite(t, h, "new")
			if syncTmp {
				require.NoError(t, h.Sync())
			}
			require.NoError(t, f.Rename("/s.jsonl.tmp", "/s.jsonl"))
		}
	}
	seen, _ := outcomes(t, AllFaults, "/s.jsonl", setup(true))
	assert.Equal(t, []string{"new", "old"}, keys(seen), "temp+fsync+rename is atomic")

	seen, _ = outcomes(t, AllFaults, "/s.jsonl", setup(false))
	assert.True(t, seen["old"])
	assert.True(t, seen[""], "renaming unsynced data can leave an empty file (the classic bug)")

	// After SyncDir the rename always survives.
	seen, _ = outcomes(t, AllFaults, "/s.jsonl", func(f *FS) {
		setup(true)(f)
		require.NoError(t, f.SyncDir("/"))
	})
	assert.Equal(t, []string{"new"}, keys(seen))
}

func TestUnsyncedRemoveAndTruncateMayBeLost(t *testing.T) {
	seen, _ := outcomes(t, AllFaults, "/f", func(f *FS) {
		f.WriteDurable("/f", []byte("keep"))
		require.NoError(t, f.Remove("/f"))
	})
	assert.Equal(t, []string{"<absent>", "keep"}, keys(seen))

	seen, _ = outcomes(t, Options{}, "/f", func(f *FS) {
		f.WriteDurable("/f", []byte("keep"))
		h, _ := f.Create("/f")
		mustWrite(t, h, "z")
	})
	assert.Equal(t, []string{"", "keep", "z"}, keys(seen))
}

func TestJournalCommitsInOrder(t *testing.T) {
	f := NewFS(choice.Fixed(0))
	require.NoError(t, f.MkdirAll("/a"))
	require.NoError(t, f.MkdirAll("/b"))
	_, err := f.Create("/a/1")
	require.NoError(t, err)
	_, err = f.Create("/b/2")
	require.NoError(t, err)
	_, err = f.Create("/a/3")
	require.NoError(t, err)
	require.NoError(t, f.SyncDir("/b"))
	assert.Equal(t, []string{"/a/1", "/b/2"}, f.DurableFiles(), "syncing /b commits the journal up to its last op")
}

func TestFailedFsyncLosesDataForGood(t *testing.T) {
	f := NewFS(choice.Fixed(0))
	f.WriteDurable("/f", []byte("A\n"))
	h, err := f.OpenAppend("/f")
	require.NoError(t, err)
	mustWrite(t, h, "B\n")
	f.FailNext(OpSync, "/f", EIO)
	err = h.Sync()
	require.ErrorIs(t, err, EIO)
	got, _ := f.ReadFile("/f")
	assert.Equal(t, "A\nB\n", string(got), "the page cache still shows the data")
	require.NoError(t, h.Sync(), "the next fsync reports success")
	mustWrite(t, h, "C\n")
	require.NoError(t, h.Sync())
	d, _ := f.Durable("/f")
	assert.Equal(t, "A\n\x00\x00C\n", string(d), "the failed range is zeros on disk")
	f.Crash()
	got, _ = f.ReadFile("/f")
	assert.Equal(t, "A\n\x00\x00C\n", string(got))
	assert.Equal(t, map[Op]int{OpSync: 1}, f.Injected())
}

func TestInjectedWriteErrors(t *testing.T) {
	f := NewFS(choice.Fixed(2))
	h, err := f.Create("/f")
	require.NoError(t, err)
	f.FailNext(OpWrite, "", ENOSPC)
	n, err := h.Write([]byte("hello"))
	require.ErrorIs(t, err, ENOSPC)
	assert.Equal(t, 2, n, "a short write keeps the chosen prefix")
	got, _ := f.ReadFile("/f")
	assert.Equal(t, "he", string(got))
	mustWrite(t, h, "!")

	for _, op := range []Op{OpCreate, OpOpenAppend, OpRename, OpRemove, OpSyncDir, OpRead} {
		f.FailNext(op, "", EIO)
	}
	_, err = f.Create("/g")
	assert.ErrorIs(t, err, EIO)
	_, err = f.OpenAppend("/g")
	assert.ErrorIs(t, err, EIO)
	assert.ErrorIs(t, f.Rename("/f", "/g"), EIO)
	assert.ErrorIs(t, f.Remove("/f"), EIO)
	assert.ErrorIs(t, f.SyncDir("/"), EIO)
	_, err = f.ReadFile("/f")
	assert.ErrorIs(t, err, EIO)
	assert.Equal(t, []string{"/f"}, f.Files(), "failed operations have no effect")
}

func TestFailRate(t *testing.T) {
	f := NewFS(choice.NewSeeded(7))
	f.FailRate(OpWrite, 4, EIO)
	h, err := f.Create("/f")
	require.NoError(t, err)
	fails := 0
	for range 400 {
		if _, err := h.Write([]byte("x")); err != nil {
			require.ErrorIs(t, err, EIO)
			fails++
		}
	}
	assert.InDelta(t, 100, fails, 40)
	f.FailRate(OpWrite, 0, nil)
	mustWrite(t, h, "y")
	f.FailRate(OpWrite, 1, EIO)
	f.FailNext(OpSync, "", EIO)
	f.ClearFaults()
	mustWrite(t, h, "z")
	require.NoError(t, h.Sync())
}

// A rate's drawn value 0 is "no fault" (the shrink target), and
// FailRate(op, 0, ...) draws nothing and never fails.
func TestFailRateZeroIsNoFault(t *testing.T) {
	f := NewFS(choice.Fixed(0))
	f.FailRate(OpWrite, 2, EIO)
	h, err := f.Create("/f")
	require.NoError(t, err)
	mustWrite(t, h, "x")

	src := choice.NewSeeded(1)
	g := NewFS(src)
	g.FailRate(OpWrite, 0, EIO)
	h, err = g.Create("/f")
	require.NoError(t, err)
	for range 50 {
		mustWrite(t, h, "x")
	}
	assert.Zero(t, src.Len(), "a zero rate draws no decision")
	assert.Empty(t, g.Injected())
}

func TestCrashAfterStopsTheProcess(t *testing.T) {
	f := NewFS(choice.Fixed(100))
	h, err := f.Create("/f")
	require.NoError(t, err)
	require.NoError(t, f.SyncDir("/"))
	f.CrashAfter(2)
	mustWrite(t, h, "a")
	require.NoError(t, h.Sync())
	_, err = h.Write([]byte("b"))
	require.ErrorIs(t, err, ErrCrashed)
	assert.ErrorIs(t, f.SyncDir("/"), ErrCrashed)
	_, err = f.ReadFile("/f")
	assert.ErrorIs(t, err, ErrCrashed)
	f.Crash()
	got, err := f.ReadFile("/f")
	require.NoError(t, err)
	assert.Equal(t, "a", string(got), "nothing after the crash point reached the disk")

	f.CrashAfter(0)
	_, err = f.Create("/g")
	assert.ErrorIs(t, err, ErrCrashed)
}

func TestSyncLiesLoseAcknowledgedData(t *testing.T) {
	f := NewFS(choice.Fixed(0))
	f.WriteDurable("/f", nil)
	f.SetSyncLies(true)
	h, _ := f.OpenAppend("/f")
	mustWrite(t, h, "acked")
	require.NoError(t, h.Sync())
	f.Crash()
	got, _ := f.ReadFile("/f")
	assert.Equal(t, "", string(got))
}

func TestPathErrors(t *testing.T) {
	f := NewFS(choice.Fixed(0))
	_, err := f.ReadFile("/nope")
	assert.ErrorIs(t, err, fs.ErrNotExist)
	_, err = f.Create("/no/dir/f")
	assert.ErrorIs(t, err, fs.ErrNotExist)
	assert.ErrorIs(t, f.Remove("/nope"), fs.ErrNotExist)
	assert.ErrorIs(t, f.Rename("/nope", "/x"), fs.ErrNotExist)
	require.NoError(t, f.MkdirAll("/a/b"))
	ok, err := f.Exists("/a")
	require.NoError(t, err)
	assert.True(t, ok)
	h, err := f.Create("/a/b/f")
	require.NoError(t, err)
	require.NoError(t, h.Close())
	_, err = h.Write([]byte("x"))
	assert.ErrorIs(t, err, fs.ErrClosed)
}

// The crash model's core invariant under rapid-chosen workloads and crashes:
// synced bytes survive, and what survives is a prefix of what was written
// (plus, at most, a junk tail inside the extent of the first lost write).
func TestCrashInvariantProperty(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		junk := rapid.Bool().Draw(rt, "junk")
		opts := Options{Tear: true, LoseDirOps: true, ZeroTail: junk, GarbageTail: junk}
		f := NewFSWith(choice.FromRapid(rt), opts)
		f.WriteDurable("/f", nil)
		h, _ := f.OpenAppend("/f")
		var written, synced []byte
		for i := range rapid.IntRange(0, 8).Draw(rt, "steps") {
			if rapid.Bool().Draw(rt, "sync") {
				require.NoError(rt, h.Sync())
				synced = append([]byte(nil), written...)
				continue
			}
			chunk := []byte(strings.Repeat(string(rune('a'+i)), rapid.IntRange(1, 4).Draw(rt, "len")))
			_, err := h.Write(chunk)
			require.NoError(rt, err)
			written = append(written, chunk...)
		}
		rep := f.Crash()
		got, err := f.ReadFile("/f")
		require.NoError(rt, err)
		require.True(rt, bytes.HasPrefix(got, synced), "synced data lost: %q vs %q (%s)", got, synced, rep)
		require.LessOrEqual(rt, len(got), len(written))
		if !junk {
			require.True(rt, bytes.HasPrefix(written, got), "not a prefix: %q of %q (%s)", got, written, rep)
		}
	})
}
