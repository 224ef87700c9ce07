//go:build frameproofbugs

package lane

import (
	"testing"

	"github.com/frameproof/frameproof/impl/lane"
)

// Every injectable impl/lane bug is caught by the lockstep comparison.
func TestMutationImplBugsCaught(t *testing.T) {
	budget := 300
	if testing.Short() {
		budget = 100
	}
	for _, name := range lane.BugNames() {
		t.Run(name, func(t *testing.T) {
			configure := func(c lane.Config) (lane.Config, error) { return lane.WithBugs(c, name) }
			seed, ferr := firstDetection(Options{Configure: configure, Actions: 16, Deferred: true}, budget)
			if seed < 0 {
				t.Fatalf("bug %s not caught in %d seeds", name, budget)
			}
			t.Logf("caught at seed %d: %.200v", seed, ferr)
		})
	}
}
