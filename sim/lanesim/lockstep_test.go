package lanesim

import (
	"testing"

	"github.com/stretchr/testify/require"

	ml "github.com/frameproof/frameproof/model/lane"
	"github.com/frameproof/frameproof/sim/choice"
)

// The lockstep comparison rejects a broken reference: with each of
// model/lane's wrong variants, a few seeds of the scenarios that exercise
// it fail as model-mismatch, while the correct model passes them.
func TestLockstepRejectsBrokenModels(t *testing.T) {
	cases := map[string][]string{
		ml.MutantKeepFramesOnSettle:  {"append-order", "mix"},
		ml.MutantNonZeroSynthetic:    {"unknown-vs-retry", "mix"},
		ml.MutantCompleteBeatsCancel: {"final-frame-vs-settlement", "mix", "deferred-replacement", "swarm"},
		ml.MutantFenceIgnored:        {"append-vs-finalization", "mix"},
	}
	seeds := uint64(30)
	if testing.Short() {
		seeds = 15
	}
	// A cancel that races a complete-looking settlement is rare in every
	// schedule (swarm seed 126 is the first to reach it since captures
	// queue on the line); memory runs are cheap, so this one gets more.
	rare := map[string]uint64{ml.MutantCompleteBeatsCancel: 150}
	defer func() { modelMutant = "" }()
	for mutant, scenarios := range cases {
		seeds := seeds
		if n, ok := rare[mutant]; ok {
			seeds = n
		}
		caught := false
		for _, name := range scenarios {
			sc, ok := ScenarioByName(name)
			require.True(t, ok)
			for seed := uint64(0); seed < seeds && !caught; seed++ {
				modelMutant = ""
				require.False(t, sc.Run(choice.NewSeeded(seed), Options{}).Failed, "%s seed %d fails with the correct model", name, seed)
				modelMutant = mutant
				out := sc.Run(choice.NewSeeded(seed), Options{})
				if out.Failed {
					require.Equal(t, "model-mismatch", out.Kind, "%s: %s", mutant, out.Message)
					caught = true
				}
			}
		}
		require.True(t, caught, "model variant %s was never rejected", mutant)
	}
}

// A compared capture waits on the line (runtime/lane.ts Lane.watch →
// readLane); the model must be taken at the cut where it ran, not when the
// caller resumes. Swarm 68: a crash reopens the lane and the next process
// starts a run before the closer's capture of the reopened lane resumes;
// mix 146: a finalization queued behind the restart's capture settles the
// operation first.
func TestLockstepCaptureComparesItsCut(t *testing.T) {
	for _, c := range []struct {
		scenario string
		seed     uint64
	}{{"swarm", 68}, {"mix", 146}} {
		sc, ok := ScenarioByName(c.scenario)
		require.True(t, ok)
		out := sc.Run(choice.NewSeeded(c.seed), Options{})
		require.False(t, out.Failed, "%s seed %d: %s", c.scenario, c.seed, out.Message)
	}
}
