//go:build frameproofbugs

package jsonl

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/frameproof/frameproof/impl/store"
)

// TestBugSwitches: no bug is on by default, every name turns on exactly
// its own switch, and unknown names are refused.
func TestBugSwitches(t *testing.T) {
	assert.Empty(t, Options{}.bugs.enabled(), "the zero value is the correct store")
	names := BugNames()
	require.Equal(t, []string{"ack-before-fsync", "compaction-renumbers", "torn-tail-as-corruption"}, names)
	for _, n := range names {
		o, err := WithBugs(Options{}, n)
		require.NoError(t, err)
		assert.Equal(t, []string{n}, o.bugs.enabled(), "%s switches only itself", n)
	}
	_, err := WithBugs(Options{}, "nope")
	require.EqualError(t, err, `jsonl: unknown bug "nope" (known: [ack-before-fsync compaction-renumbers torn-tail-as-corruption])`)
}

// withBug is Options with the named bug on when on is true.
func withBug(t *testing.T, name string, on bool) Options {
	t.Helper()
	if !on {
		return Options{}
	}
	o, err := WithBugs(Options{}, name)
	require.NoError(t, err)
	return o
}

// TestBugsAreWired: each injected bug changes behaviour exactly where it
// says, and the same scenario without it is correct.
func TestBugsAreWired(t *testing.T) {
	t.Run("ack-before-fsync", func(t *testing.T) {
		for _, bug := range []bool{false, true} {
			m := newMemFS()
			s := newStore(t, m, withBug(t, "ack-before-fsync", bug))
			res, err := s.Commit([]store.Write{set(t, tip, "a")})
			require.NoError(t, err)
			assert.Equal(t, !bug, durableHas(m, res.Seqs[0]), "bug=%v", bug)
		}
	})
	t.Run("torn-tail-as-corruption", func(t *testing.T) {
		for _, bug := range []bool{false, true} {
			m := newMemFS()
			m.put(path, []byte(hdr+rec1+`{"kind":"va`))
			_, err := Open(testEnv(m), path, withBug(t, "torn-tail-as-corruption", bug))
			if bug {
				require.EqualError(t, err, "Invalid JSONL storage /s/session.jsonl: line 3")
			} else {
				require.NoError(t, err)
			}
		}
	})
	t.Run("compaction-renumbers", func(t *testing.T) {
		for _, bug := range []bool{false, true} {
			m := newMemFS()
			s := newStore(t, m, withBug(t, "compaction-renumbers", bug))
			fillForCompaction(t, s)
			before := snap(t, s)
			require.NoError(t, s.Compact())
			r, err := Open(testEnv(m), path, Options{})
			require.NoError(t, err)
			d := cmp.Diff(before, snap(t, r))
			assert.Equal(t, bug, d != "", "bug=%v: reopened state differs: %s", bug, d)
		}
	})
}
