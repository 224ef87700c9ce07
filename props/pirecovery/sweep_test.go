package pirecovery

import (
	"context"
	"strings"
	"testing"

	"github.com/frameproof/frameproof/props/peer"
	"github.com/stretchr/testify/require"
)

// TestSweepSliceAgreesWithPi is the CI slice of `frameproof
// pi-recovery-sweep`: every third crash point of every scripted run against
// pi-agent-core 0.85.1. frameproof recover must commit pi's recovery
// transaction byte for byte at every point, and impl/lane's reopen every
// line pi's reopen commits.
func TestSweepSliceAgreesWithPi(t *testing.T) {
	dir := peer.Require(t, peer.PiAgentCore)
	pts, sum, err := RunScript(context.Background(), dir, Options{Every: 3})
	require.NoError(t, err)
	require.Equal(t, DefaultRelease, sum.Version)
	rel, err := ReleaseOf(sum.Version)
	require.NoError(t, err)
	require.NotEmpty(t, pts)
	scratch := t.TempDir()
	recoveries := 0
	for _, p := range pts {
		v, err := Compare(p, scratch, rel)
		require.NoError(t, err)
		require.True(t, v.Recover.Agree, "run %s k=%d: frameproof recover vs pi:\n%s", p.Run, p.K, v.Recover.Diff)
		if v.Shape != (Shape{}) {
			recoveries++
		}
		require.True(t, v.Lane.Agree, "run %s k=%d: impl/lane vs pi:\n%s", p.Run, p.K, v.Lane.Diff)
	}
	require.Positive(t, recoveries, "the slice met no recovery at all")
}

// TestRecoveryCorpusReplays replays every corpus/recovery entry (one per
// recovery shape the sweep met, with pi's own reopen of it) against
// frameproof recover and impl/lane, without node.
func TestRecoveryCorpusReplays(t *testing.T) {
	entries, err := ReadEntries("../../corpus/recovery")
	require.NoError(t, err)
	require.NotEmpty(t, entries)
	scratch := t.TempDir()
	shapes := map[string]bool{}
	for _, e := range entries {
		t.Run(strings.TrimSuffix(e.FileName(), ".json"), func(t *testing.T) {
			require.Equal(t, int64(ReopenT), e.ReopenT)
			rel, err := ReleaseOf(e.Pi)
			require.NoError(t, err)
			v, err := Compare(e.Point(), scratch, rel)
			require.NoError(t, err)
			require.Equal(t, e.Shape.Leaf, v.Shape.Leaf)
			require.Equal(t, e.Shape.LastFrame, v.Shape.LastFrame)
			require.Equal(t, e.Shape.Disposition, v.Shape.Disposition)
			require.True(t, v.Recover.Agree, "frameproof recover vs pi:\n%s", v.Recover.Diff)
			require.True(t, v.Lane.Agree, "impl/lane vs pi:\n%s", v.Lane.Diff)
			key := v.Shape.String()
			require.False(t, shapes[key], "two entries of one shape")
			shapes[key] = true
		})
	}
}
