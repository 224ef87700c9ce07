package lanesim

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/frameproof/frameproof/sim/campaign"
	"github.com/frameproof/frameproof/sim/choice"
)

// overflowSeeds are the first want swarm seeds (searching at most n) whose
// runs write an overflow compaction preparation, found with the counting
// mutant. Searching for a count, not within a fixed range, keeps the test
// from depending on where another actor's new draw moves the seeds.
func overflowSeeds(t *testing.T, sc Scenario, n uint64, want int) []uint64 {
	var seeds []uint64
	for seed := uint64(1); seed <= n && len(seeds) < want; seed++ {
		overflowMutant, overflowSettlements = "count", 0
		out := sc.Run(choice.NewSeeded(seed), Options{})
		require.False(t, out.Failed, "seed %d fails without a mutant: %s", seed, out.Message)
		if overflowSettlements > 0 {
			seeds = append(seeds, seed)
		}
	}
	return seeds
}

// runtime/drive/response.ts publishResponse writes the overflow compaction
// preparation in the settlement TX, in prepareCompaction's key order: runs
// that settle an overflow fail as a model mismatch when that write is
// dropped or its keys are reordered.
func TestOverflowPreparationMutantsAreCaught(t *testing.T) {
	defer func() { overflowMutant, overflowSettlements = "", 0 }()
	sc, _ := ScenarioByName("swarm")
	want := 4
	if testing.Short() {
		want = 2
	}
	const n = 1000
	seeds := overflowSeeds(t, sc, n, want)
	t.Logf("swarm seeds that settle an overflow (first %d within %d): %v", want, n, seeds)
	require.NotEmpty(t, seeds, "no swarm seed settled an overflow")
	for _, mutant := range []string{"drop", "reorder"} {
		for _, seed := range seeds {
			overflowMutant = mutant
			out := sc.Run(choice.NewSeeded(seed), Options{})
			require.True(t, out.Failed, "seed %d: an overflow settled but the %s mutant passed", seed, mutant)
			require.Equal(t, campaign.KindModelMismatch, out.Kind, "seed %d: %s", seed, out.Message)
			require.Contains(t, out.Message, "pi.op.preparation", "seed %d", seed)
		}
	}
}
