package campaign

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/frameproof/frameproof/sim/choice"
)

// bigValue fails when any of its 1..20 drawn values is >= 7.
var bigValue = Scenario{Name: "big", Run: func(src choice.Source, _ RunOptions) Outcome {
	n := 1 + src.Intn("ops", 20)
	for i := range n {
		if v := src.Intn("value", 10); v >= 7 {
			return Outcome{Failed: true, Kind: KindInvariant, Message: fmt.Sprintf("value %d at %d", v, i)}
		}
	}
	return Outcome{}
}}

// A failing seed shrinks to a tape that still fails with its kind; a
// passing seed has nothing to shrink.
func TestShrinkSeed(t *testing.T) {
	var failing, passing bool
	for seed := uint64(0); seed < 30 && !(failing && passing); seed++ {
		s := ShrinkSeed(bigValue, RunOptions{TempDir: t.TempDir()}, seed, 200)
		if !s.First.Failed {
			passing = true
			require.Nil(t, s.Shrunk)
			continue
		}
		failing = true
		require.True(t, s.Reproduced(), "seed %d", seed)
		require.LessOrEqual(t, len(s.Shrunk), len(s.Tape))
		require.LessOrEqual(t, len(s.Shrunk), 2, "one count and one big value at most: %v", s.Shrunk)
	}
	require.True(t, failing && passing, "30 seeds give both a pass and a failure")
}

func TestGroupFailuresMasksDigits(t *testing.T) {
	g := GroupFailures([]ReportedFailure{
		{Kind: KindInvariant, Message: "value 8 at op 3\ndetail"},
		{Kind: KindLiveness, Message: "stuck"},
		{Kind: KindInvariant, Message: "value 9 at op 12"},
	})
	require.Len(t, g, 2)
	require.Equal(t, "value 8 at op 3", g[0].Message)
	require.Len(t, g[0].Members, 2)
	require.Equal(t, KindLiveness, g[1].Kind)
}
