package lanesim

import (
	"testing"

	"github.com/stretchr/testify/require"

	ml "github.com/frameproof/frameproof/model/lane"
	"github.com/frameproof/frameproof/sim/campaign"
	"github.com/frameproof/frameproof/sim/choice"
)

// The lockstep comparison rejects a broken reference: with each of
// model/lane's wrong variants, some seed of the scenarios that exercise it
// fails as model-mismatch, while the correct model passes every seed tried.
func TestLockstepRejectsBrokenModels(t *testing.T) {
	cases := map[string][]string{
		ml.MutantKeepFramesOnSettle:  {"append-order", "mix"},
		ml.MutantNonZeroSynthetic:    {"unknown-vs-retry", "mix"},
		ml.MutantCompleteBeatsCancel: {"final-frame-vs-settlement", "mix", "deferred-replacement", "swarm"},
		ml.MutantFenceIgnored:        {"append-vs-finalization", "mix"},
		// tool-placement.ts commitPlacement deletes each placed result's pending entry
		ml.MutantPlacementKeepsPending: {"mix"},
	}
	// A cancel that races a complete-looking settlement is rare in every
	// schedule, and where it first happens moves whenever an actor's draws
	// change; the search stops at the first rejection, so a generous bound
	// costs nothing while the variants are caught.
	const n = 1000
	defer func() { modelMutant = "" }()
	for mutant, scenarios := range cases {
		name, seed, ok := rejectingSeed(t, mutant, scenarios, n)
		require.True(t, ok, "model variant %s was never rejected in %d seeds of %v", mutant, n, scenarios)
		t.Logf("%s: first rejected at %s seed %d", mutant, name, seed)
	}
}

// rejectingSeed searches seed by seed, across the scenarios, for the first
// run the model variant fails (at most n seeds each); every seed it tries
// must pass with the correct model, and the variant's failure must be a
// model mismatch. Searching for the first rejection, not within a fixed
// range, keeps the test from depending on where schedules move.
func rejectingSeed(t *testing.T, mutant string, scenarios []string, n uint64) (string, uint64, bool) {
	t.Helper()
	for seed := uint64(0); seed < n; seed++ {
		for _, name := range scenarios {
			sc, ok := ScenarioByName(name)
			require.True(t, ok, name)
			modelMutant = ""
			out := sc.Run(choice.NewSeeded(seed), Options{})
			require.False(t, out.Failed, "%s seed %d fails with the correct model: %s", name, seed, out.Message)
			modelMutant = mutant
			out = sc.Run(choice.NewSeeded(seed), Options{})
			if out.Failed {
				require.Equal(t, campaign.KindModelMismatch, out.Kind, "%s: %s", mutant, out.Message)
				return name, seed, true
			}
		}
	}
	return "", 0, false
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
