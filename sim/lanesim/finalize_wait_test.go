package lanesim

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/frameproof/frameproof/sim/choice"
)

// The finalizer removes an operation under a retry wait and under a
// suspended poll it just granted a permit to, and the runs pass: the
// retry-ready and poll-intent commands find their operation gone and
// commit nothing. Swarm seeds until both happened (a guard that
// dereferences the vanished operation panics in one of them).
func TestFinalizerRemovesWaitingOperations(t *testing.T) {
	sc, ok := ScenarioByName(SwarmScenario)
	require.True(t, ok)
	reached := map[string]int{}
	for seed := uint64(0); seed < 800 && (reached[orderInRetryWait] == 0 || reached[orderInSuspendedPoll] < 8); seed++ {
		out := sc.Run(choice.NewSeeded(seed), Options{})
		require.False(t, out.Failed, "seed %d: %s: %s\nrepro: frameproof repro %d --scenario %s", seed, out.Kind, out.Message, seed, SwarmScenario)
		for _, o := range out.RaceOrders[rowFinalizeWaiting] {
			reached[o]++
		}
	}
	require.Positive(t, reached[orderInRetryWait], "no finalization in a retry wait")
	require.GreaterOrEqual(t, reached[orderInSuspendedPoll], 8, "finalizations of suspended polls")
}
