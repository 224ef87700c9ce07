package lanesim

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/frameproof/frameproof/sim/campaign"
	"github.com/frameproof/frameproof/sim/choice"
)

// TestReplayBudgetFollowsTape: an empty tape replays as the all-zero
// schedule, on which retry-cap spins (the first runnable actor polls
// forever). Its liveness verdict now comes after ReplayStepFloor steps,
// not DefaultMaxSteps, which is what makes shrinking a liveness failure
// fast; a seeded run keeps the full budget.
func TestReplayBudgetFollowsTape(t *testing.T) {
	sc, ok := ScenarioByName("retry-cap")
	require.True(t, ok)
	out := sc.Run(choice.NewReplay(nil), Options{Backend: "memory"})
	require.True(t, out.Failed)
	require.Equal(t, campaign.KindLiveness, out.Kind, out.Message)
	require.LessOrEqual(t, out.Steps, ReplayStepFloor+1, "the empty tape ran past its budget")
	require.Contains(t, out.Message, "step budget of 5000 exhausted")

	require.Equal(t, DefaultMaxSteps, StepBudget(choice.NewSeeded(1)))
	long := make(choice.Tape, 100_000)
	require.Equal(t, DefaultMaxSteps, StepBudget(choice.NewReplay(long)), "capped at the seeded budget")
	require.Equal(t, ReplayStepFloor+ReplayStepsPerChoice*10, StepBudget(choice.NewReplay(long[:10])))
}

// TestReplayBudgetKeepsVerdicts: replaying the tape of a seeded run gives
// the same verdict and trace under the tape's budget, for every scenario
// (passing runs take a few hundred steps, far under the floor).
func TestReplayBudgetKeepsVerdicts(t *testing.T) {
	seeds := uint64(6)
	if testing.Short() {
		seeds = 2
	}
	for _, sc := range Scenarios() {
		for seed := uint64(1); seed <= seeds; seed++ {
			src := choice.NewSeeded(seed)
			first := sc.Run(src, Options{Backend: "memory"})
			again := sc.Run(choice.NewReplay(src.Tape()), Options{Backend: "memory"})
			require.Equal(t, first.Failed, again.Failed, "%s seed %d: %s / %s", sc.Name, seed, first.Message, again.Message)
			require.Equal(t, first.TraceHash, again.TraceHash, "%s seed %d", sc.Name, seed)
		}
	}
}
