package lanesim

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/frameproof/frameproof/sim/choice"
)

// searchSwarm runs swarm seeds from 0 until done says the orders of row
// reached so far suffice, or max seeds ran; every run must pass. It
// returns how many runs took each order.
func searchSwarm(t *testing.T, max int, row string, done func(map[string]int) bool) map[string]int {
	t.Helper()
	sc, ok := ScenarioByName(SwarmScenario)
	require.True(t, ok)
	reached := map[string]int{}
	for seed := uint64(0); seed < uint64(max) && !done(reached); seed++ {
		out := sc.Run(choice.NewSeeded(seed), Options{})
		require.False(t, out.Failed, "seed %d: %s: %s\nrepro: frameproof repro %d --scenario %s", seed, out.Kind, out.Message, seed, SwarmScenario)
		for _, o := range out.RaceOrders[row] {
			reached[o]++
		}
	}
	return reached
}

// With pi's lost-operation rule drawn, the finalizer aims at the moment
// between a step's dispatch and its first command (awaitStepStart): the
// intent and the deferred source read meet pi's fault in several runs of a
// bounded seed search, where an unaimed finalizer reached the intent in
// about one seed of 300 and the source read in none. A lane that declines
// either command instead of faulting is caught there by the lockstep model.
func TestFinalizerReachesLostOperationAtStepStart(t *testing.T) {
	reached := searchSwarm(t, 600, rowLostOperation, func(r map[string]int) bool {
		return r["intent"] >= 4 && r["deferred-source"] >= 2
	})
	require.GreaterOrEqual(t, reached["intent"], 4, "intent faults: %v", reached)
	require.GreaterOrEqual(t, reached["deferred-source"], 2, "deferred source read faults: %v", reached)
}

// Swarm seeds that draw run configurations start runs after the first
// with another configuration than the lane's, so the run start commits it
// first (impl/lane/laneconfig.go acquire, pi's setConfiguration behind
// setModel, setThinkingLevel and setActiveTools): a bounded seed search
// reaches it several times, where every run used to bring the lane's.
func TestSwarmReachesRunReconfiguration(t *testing.T) {
	reached := searchSwarm(t, 300, rowLaneConfig, func(r map[string]int) bool {
		return r[orderLaneReconfigured] >= 5
	})
	require.GreaterOrEqual(t, reached[orderLaneReconfigured], 5, "%v", reached)
}

// runtime/lane.ts cancelQueued: the queuer's CancelQueued calls reach each
// of pi's answers (the item removed, placed already, never queued or
// removed by a cancel) in a bounded seed search, each compared with the
// model's transaction, events and answer.
func TestQueuerReachesEveryCancelQueuedAnswer(t *testing.T) {
	reached := searchSwarm(t, 300, rowCancelQueued, func(r map[string]int) bool {
		return r["cancelled"] >= 3 && r["already_consumed"] >= 1 && r["not_found"] >= 3
	})
	t.Logf("cancel-queued answers: %v", reached)
	require.GreaterOrEqual(t, reached["cancelled"], 3, "%v", reached)
	require.GreaterOrEqual(t, reached["already_consumed"], 1, "%v", reached)
	require.GreaterOrEqual(t, reached["not_found"], 3, "%v", reached)
}

// runtime/drive/generation.ts prepareGeneration: swarm seeds that draw an
// unavailable configuration start one run whose model the lane's registry
// does not know, or whose active tools name one the lane lacks; the lane
// fails it before its intent (publishConfigurationFailure), and the
// lockstep compares the failed result, its details and run_end with the
// model's. A bounded seed search reaches both codes.
func TestSwarmReachesConfigurationFailures(t *testing.T) {
	reached := searchSwarm(t, 300, rowUnavailable, func(r map[string]int) bool {
		return r["model_unavailable"] >= 3 && r["configured_tools_unavailable"] >= 3
	})
	t.Logf("configuration failures: %v", reached)
	require.GreaterOrEqual(t, reached["model_unavailable"], 3, "%v", reached)
	require.GreaterOrEqual(t, reached["configured_tools_unavailable"], 3, "%v", reached)
	require.NotContains(t, reached, "no-error")
}

// Issue 25 item 5: the simulated read tool answers a .png path with an
// image alone and member-less arguments with no content, so tool results
// without text reach the transcript, snapshots, captures and the replay
// projection the lockstep compares; a bounded seed search reaches both.
func TestSwarmReachesToolResultsWithoutText(t *testing.T) {
	reached := searchSwarm(t, 1500, rowToolResultShape, func(r map[string]int) bool {
		return r["empty"] >= 3 && r["images-only"] >= 3
	})
	t.Logf("tool results without text: %v", reached)
	require.GreaterOrEqual(t, reached["empty"], 3, "%v", reached)
	require.GreaterOrEqual(t, reached["images-only"], 3, "%v", reached)
}

// reachSeeds is the default campaign's swarm cell on memory: seeds 1..300
// (`frameproof sim` with its default --seed and --seeds).
const reachSeeds = 300

// Every item of the reach registry is reached by the default campaign's
// swarm seeds on memory alone, each at least reachFloor times, so a
// generator change that stops reaching one fails here (and the report's
// NOT REACHED is never the default campaign's).
func TestDefaultSwarmReachesEveryItem(t *testing.T) {
	const reachFloor = 3
	sc, ok := ScenarioByName(SwarmScenario)
	require.True(t, ok)
	counts := map[string]map[string]int{}
	for seed := uint64(1); seed <= reachSeeds; seed++ {
		out := sc.Run(choice.NewSeeded(seed), Options{Backend: "memory"})
		require.False(t, out.Failed, "seed %d: %s: %s", seed, out.Kind, out.Message)
		for row, orders := range out.RaceOrders {
			if counts[row] == nil {
				counts[row] = map[string]int{}
			}
			for _, o := range orders {
				counts[row][o]++
			}
		}
	}
	for _, it := range ReachItems() {
		n := counts[it.Row][it.Order]
		t.Logf("%-40s %5d runs", it.Name, n)
		require.GreaterOrEqual(t, n, reachFloor, "%s (%s %s) reached by %d of %d swarm seeds", it.Name, it.Row, it.Order, n, reachSeeds)
	}
}
