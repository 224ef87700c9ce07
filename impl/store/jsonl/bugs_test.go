package jsonl

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/frameproof/frameproof/impl/store"
)

// TestBugSwitches: the zero value enables nothing, every name turns on
// exactly its own field, and unknown names are refused.
func TestBugSwitches(t *testing.T) {
	var zero Bugs
	assert.Empty(t, zero.Enabled(), "the zero value is the correct store")
	assert.Equal(t, Bugs{}, Options{}.Bugs)
	names := BugNames()
	require.Equal(t, []string{"ack-before-fsync", "compaction-renumbers", "torn-tail-as-corruption"}, names)
	for _, n := range names {
		var b Bugs
		require.NoError(t, b.Set(n))
		assert.Equal(t, []string{n}, b.Enabled(), "%s switches only itself", n)
	}
	var b Bugs
	require.EqualError(t, b.Set("nope"), `jsonl: unknown bug "nope" (known: [ack-before-fsync compaction-renumbers torn-tail-as-corruption])`)
	assert.Empty(t, b.Enabled())
}

// TestBugsAreWired: each injected bug changes behaviour exactly where it
// says, and the same scenario without it is correct.
func TestBugsAreWired(t *testing.T) {
	t.Run("ack-before-fsync", func(t *testing.T) {
		for _, bug := range []bool{false, true} {
			m := newMemFS()
			s := newStore(t, m, Options{Bugs: Bugs{AckBeforeFsync: bug}})
			res, err := s.Commit([]store.Write{set(t, tip, "a")})
			require.NoError(t, err)
			assert.Equal(t, !bug, durableHas(m, res.Seqs[0]), "bug=%v", bug)
		}
	})
	t.Run("torn-tail-as-corruption", func(t *testing.T) {
		for _, bug := range []bool{false, true} {
			m := newMemFS()
			m.put(path, []byte(hdr+rec1+`{"kind":"va`))
			_, err := Open(testEnv(m), path, Options{Bugs: Bugs{TornTailAsCorruption: bug}})
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
			s := newStore(t, m, Options{Bugs: Bugs{CompactionRenumbers: bug}})
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
