package faults

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/frameproof/frameproof/sim/choice"
)

// subsetOutcomes is outcomes with every crash forced into subset mode.
func subsetOutcomes(t *testing.T, opts Options, path string, setup func(f *FS)) map[string]bool {
	t.Helper()
	seen := map[string]bool{}
	_, complete := choice.Enumerate(100000, func(c choice.Source) {
		f := NewFSWith(choice.Fixed(0), opts)
		setup(f)
		f.CrashInMode(c, ModeSubset)
		got, err := f.ReadFile(path)
		if err != nil {
			seen["<absent>"] = true
			return
		}
		seen[string(got)] = true
	})
	require.True(t, complete)
	return seen
}

// A subset crash keeps any subset of the writes of one fsync epoch; a
// dropped write before a kept one reads back as zeros.
func TestSubsetCrashKeepsAnySubsetOfAnEpoch(t *testing.T) {
	got := subsetOutcomes(t, Options{Subset: true}, "/f", func(f *FS) {
		h, err := f.Create("/f")
		require.NoError(t, err)
		require.NoError(t, f.SyncDir("/"))
		mustWrite(t, h, "ab")
		require.NoError(t, h.Sync())
		mustWrite(t, h, "cd")
		mustWrite(t, h, "ef")
	})
	assert.Equal(t, []string{"ab", "ab\x00\x00ef", "abcd", "abcdef"}, keys(got))
}

// Block tearing: a write spanning block boundaries survives piecewise.
func TestSubsetCrashTearsAtBlocks(t *testing.T) {
	got := subsetOutcomes(t, Options{Subset: true, BlockSize: 4}, "/f", func(f *FS) {
		h, err := f.Create("/f")
		require.NoError(t, err)
		require.NoError(t, f.SyncDir("/"))
		mustWrite(t, h, "ab")
		require.NoError(t, h.Sync())
		mustWrite(t, h, "cdefgh") // pieces "cd" | "efgh" at offsets 2 and 4
	})
	assert.Equal(t, []string{"ab", "ab\x00\x00efgh", "abcd", "abcdefgh"}, keys(got))
}

// Synced data survives subset crashes, and the crash mode is a choice:
// without Subset every crash is a prefix crash.
func TestSubsetModeIsAChoice(t *testing.T) {
	modes := map[string]bool{}
	for _, opts := range []Options{{}, {Subset: true}} {
		choice.Enumerate(0, func(c choice.Source) {
			f := NewFSWith(choice.Fixed(0), opts)
			h, _ := f.Create("/f")
			mustWrite(t, h, "x")
			require.NoError(t, h.Sync())
			require.NoError(t, f.SyncDir("/"))
			mustWrite(t, h, "y")
			rep := f.CrashWith(c)
			modes[strings.Join([]string{boolName(opts.Subset), rep.Mode}, "/")] = true
			got, err := f.ReadFile("/f")
			require.NoError(t, err)
			require.True(t, strings.HasPrefix(string(got), "x"), "synced data lost: %q", got)
		})
	}
	assert.Equal(t, []string{"off/prefix", "on/prefix", "on/subset"}, keys(modes))
}

func boolName(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

// The image hash depends on names and contents only, and the same choices
// give the same image.
func TestImageIdentifiesTheDisk(t *testing.T) {
	build := func(name, content string) *FS {
		f := NewFS(choice.Fixed(0))
		f.WriteDurable(name, []byte(content))
		return f
	}
	assert.Equal(t, build("/a", "x").Image(), build("/a", "x").Image())
	assert.NotEqual(t, build("/a", "x").Image(), build("/a", "y").Image())
	assert.NotEqual(t, build("/a", "x").Image(), build("/b", "x").Image())
	assert.NotEqual(t, build("/a", "xy").Image(), build("/ax", "y").Image())

	crash := func(seed uint64) uint64 {
		f := NewFS(choice.NewSeeded(seed))
		h, _ := f.Create("/f")
		mustWrite(t, h, strings.Repeat("z", 1500))
		return f.Crash().Image
	}
	for seed := uint64(1); seed < 20; seed++ {
		require.Equal(t, crash(seed), crash(seed), "seed %d", seed)
	}
}

// A clone crashes independently of its original.
func TestCloneIsIndependent(t *testing.T) {
	f := NewFS(choice.Fixed(0))
	h, _ := f.Create("/f")
	mustWrite(t, h, "a")
	require.NoError(t, h.Sync())
	require.NoError(t, f.SyncDir("/"))
	mustWrite(t, h, "b")
	g := f.Clone(choice.Fixed(1))
	g.Crash()
	got, _ := g.ReadFile("/f")
	assert.Equal(t, "ab", string(got))
	f.Crash()
	got, _ = f.ReadFile("/f")
	assert.Equal(t, "a", string(got))
}
