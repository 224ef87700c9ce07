//go:build frameproofbugs

package lane

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/frameproof/frameproof/impl/lane"
)

// swarmOnlyBugs are the impl/lane bugs whose inputs only the simulator's
// swarm draws (sim/lanesim reach.go): a Bedrock thinking block redacted
// mid-block, a crash aimed at an outcome staged behind a pending call.
// These properties generate neither; sim/lanesim's mutation score and
// cmd/frameproof's bug cells catch them.
var swarmOnlyBugs = []string{"resume-reopens-staged", "thinking-end-keeps-start-redacted"}

// Every injectable impl/lane bug but swarmOnlyBugs is caught by the
// lockstep comparison.
func TestMutationImplBugsCaught(t *testing.T) {
	budget := 300
	if testing.Short() {
		budget = 100
	}
	for _, name := range swarmOnlyBugs {
		require.Contains(t, lane.BugNames(), name)
	}
	for _, name := range lane.BugNames() {
		if slices.Contains(swarmOnlyBugs, name) {
			continue
		}
		t.Run(name, func(t *testing.T) {
			configure := func(c lane.Config) (lane.Config, error) {
				// pages of two frames: recovery and snapshots follow the
				// cursor past a first page (the page size changes how many
				// reads a list takes, never what they return)
				c.FramePageSize = 2
				return lane.WithBugs(c, name)
			}
			seed, ferr := firstDetection(Options{Configure: configure, Actions: 16, Deferred: true}, budget)
			if seed < 0 {
				t.Fatalf("bug %s not caught in %d seeds", name, budget)
			}
			t.Logf("caught at seed %d: %.200v", seed, ferr)
		})
	}
}
