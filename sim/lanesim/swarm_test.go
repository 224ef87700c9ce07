package lanesim

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/frameproof/frameproof/sim/choice"
)

// Swarm seeds draw different settings, the same seed the same ones.
func TestSwarmDrawsSettingsPerSeed(t *testing.T) {
	seen := map[string]bool{}
	for seed := uint64(0); seed < 20; seed++ {
		a := swarmProfile(choice.NewSeeded(seed)).settings()
		require.Equal(t, a, swarmProfile(choice.NewSeeded(seed)).settings())
		seen[a] = true
	}
	require.Greater(t, len(seen), 15)
	sc, ok := ScenarioByName(SwarmScenario)
	require.True(t, ok)
	out := sc.Run(choice.NewSeeded(3), Options{Backend: "memory"})
	require.False(t, out.Failed, out.Message)
	require.Contains(t, out.Settings, "crashes=")
}

// TestSwarmClosesAfterStorageFaults runs the combination that found the
// JSONL reopen-after-failed-fsync loss (props/crash
// TestReopenAfterFailedFsyncKeepsLaterCommits pins the store side): the
// closer beside storage faults, which swarm now draws like any other pair.
func TestSwarmClosesAfterStorageFaults(t *testing.T) {
	sc, _ := ScenarioByName(SwarmScenario)
	both := 0
	for seed := uint64(0); seed < 300; seed++ {
		src := choice.NewSeeded(seed)
		out := sc.Run(src, Options{Backend: "jsonl"})
		require.False(t, out.Failed, "seed %d: %s: %s\nsettings: %s", seed, out.Kind, out.Message, out.Settings)
		if strings.Contains(out.Settings, "closer=true") && !strings.Contains(out.Settings, "storage-faults=1/0 ") {
			both++
		}
	}
	require.Positive(t, both, "no seed drew the closer beside storage faults")
}

// Swarm seeds reach what only non-default settings and outside inputs
// exercise: a recovery the frame budget cuts short, a JSONL file that
// starts with another pi writer's rows (array addresses among them), and
// the refused-file probe in both pi's and strict mode.
func TestSwarmReachesBudgetsAndStoreInputs(t *testing.T) {
	sc, _ := ScenarioByName(SwarmScenario)
	want := []string{"frame budget", "foreign rows", "refused-file probe: Value ", "refused-file probe: Invalid JSONL value",
		"refused-file probe: Invalid JSONL entry timestamp", "refused-file probe: namespace.includes",
		"refused-file probe: Invalid JSONL transaction: not valid JSON"}
	seen := map[string]bool{}
	arrays := false
	seed := uint64(0)
	for ; len(seen) < len(want) || !arrays; seed++ {
		require.Less(t, seed, uint64(200), "seen %v, array addresses %t", seen, arrays)
		out := sc.Run(choice.NewSeeded(seed), Options{Backend: "jsonl"})
		require.False(t, out.Failed, "seed %d: %s: %s\nsettings: %s", seed, out.Kind, out.Message, out.Settings)
		for _, f := range out.Faults {
			for _, w := range want {
				if strings.Contains(f, w) {
					seen[w] = true
				}
			}
			arrays = arrays || strings.Contains(f, `foreign rows`) && strings.Contains(f, `"namespace":[`)
		}
	}
	t.Logf("all reached within %d seeds", seed)
}

// runtime/lane.ts continueOperation: with pi's rule drawn (lane and model
// without SkipStaleSettlement), the finalizer removes operations under
// drive steps and the commands that find none fault the harness; the
// model predicts each fault in lockstep (a fault it did not predict, or a
// predicted one that did not happen, fails the run).
func TestSwarmReachesLostOperationFaults(t *testing.T) {
	sc, _ := ScenarioByName(SwarmScenario)
	kinds := map[string]int{}
	for seed := uint64(0); seed < 300 && len(kinds) < 2; seed++ {
		out := sc.Run(choice.NewSeeded(seed), Options{Backend: "memory"})
		require.False(t, out.Failed, "seed %d: %s: %s\nsettings: %s", seed, out.Kind, out.Message, out.Settings)
		for _, f := range out.Faults {
			if kind, ok := strings.CutSuffix(f, " step faulted on a finalized operation: Cannot read properties of null (reading 'state')"); ok {
				kinds[kind]++
			}
		}
	}
	t.Logf("lost-operation faults by step: %v", kinds)
	require.GreaterOrEqual(t, len(kinds), 2, "lost-operation faults reached too few step kinds: %v", kinds)
}
