package lanesim

import (
	"testing"

	"github.com/stretchr/testify/require"

	ml "github.com/frameproof/frameproof/model/lane"
	"github.com/frameproof/frameproof/sim/choice"
)

// The lockstep comparison rejects a broken reference: with each of
// model/lane's wrong variants, some seed of the scenarios that exercise it
// fails as model-mismatch, while the correct model passes that seed. The
// search stops at the first catch and is bounded generously, because a
// rare variant's first catching seed moves whenever an actor draws one
// more choice (complete-beats-cancel needs a cancel to race a completion).
func TestLockstepRejectsBrokenModels(t *testing.T) {
	cases := map[string][]string{
		ml.MutantKeepFramesOnSettle:  {"append-order", "mix"},
		ml.MutantNonZeroSynthetic:    {"unknown-vs-retry", "mix"},
		ml.MutantCompleteBeatsCancel: {"final-frame-vs-settlement", "mix", "deferred-replacement", "swarm"},
		ml.MutantFenceIgnored:        {"append-vs-finalization", "mix"},
	}
	seeds := uint64(400)
	if testing.Short() {
		seeds = 200
	}
	defer func() { modelMutant = "" }()
	for mutant, scenarios := range cases {
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
		require.True(t, caught, "model variant %s was never rejected within %d seeds of %v", mutant, seeds, scenarios)
	}
}
