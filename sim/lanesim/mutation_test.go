//go:build frameproofbugs

package lanesim

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/frameproof/frameproof/sim/campaign"
	"github.com/frameproof/frameproof/sim/choice"
)

// mutationScenarios are the scenarios the mutation campaign runs per bug,
// on memory and jsonl, in this order (the store bugs need jsonl; the bugs
// only the reach registry's inputs reach, the swarm).
var mutationScenarios = []string{"mix", "crash-with-queued-writes", "append-vs-finalization", "update-vs-commit",
	"final-frame-vs-settlement", "poll-replacement", "deferred-replacement", "compaction", "storage-fault", SwarmScenario}

// TestMutationScore: for every injectable bug, a campaign over the
// scenarios finds a failing seed within the budget; the failure is shrunk
// and re-run for determinism by sim/campaign. Seeds-to-detection is
// reported per bug. The same campaigns on the correct code pass.
func TestMutationScore(t *testing.T) {
	seeds := 30
	if testing.Short() {
		// The slowest bug to surface under mix (cancel-loses-to-complete) is a
		// cancel racing completion: about one seed in eight reaches it.
		seeds = 20
	}
	var table strings.Builder
	fmt.Fprintf(&table, "%-34s %-40s %5s %s\n", "bug", "caught by", "seed#", "kind")
	for _, bug := range BugNames() {
		caught := false
		for _, name := range mutationScenarios {
			for _, be := range inProcessBackends() {
				sc, _ := ScenarioByName(name)
				opts := Options{Backend: be, Bugs: []string{bug}}
				n := seeds
				if name == SwarmScenario {
					// the reach registry's inputs come in a few swarm
					// seeds of a default campaign's 300, not in every one
					n = reachSeeds
				}
				sum, err := campaign.Campaign{Scenario: name, Backend: be, Bug: bug, Seeds: n, MaxFailures: 1, ShrinkAttempts: 10,
					Run: func(src choice.Source) campaign.Result {
						o := sc.Run(src, opts)
						return campaign.Result{Failed: o.Failed, Kind: o.Kind, Message: o.Message, TraceHash: o.TraceHash, Steps: int64(o.Steps)}
					}}.Execute()
				require.NoError(t, err)
				if len(sum.Failures) == 0 {
					continue
				}
				f := sum.Failures[0]
				require.NotEqual(t, campaign.KindNondeterminism, f.Kind, "%s: %s", bug, f.Message)
				require.LessOrEqual(t, f.ShrunkTapeLen, f.TapeLen)
				fmt.Fprintf(&table, "%-34s %-40s %5d %s\n", bug, name+"/"+be, f.Seed+1, f.Kind)
				caught = true
				break
			}
			if caught {
				break
			}
		}
		require.True(t, caught, "bug %s escaped every scenario within %d seeds", bug, seeds)
	}
	t.Logf("mutation score %d/%d (seed# = seeds run until the first failure):\n%s", len(BugNames()), len(BugNames()), table.String())
}
