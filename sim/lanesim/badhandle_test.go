package lanesim

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/frameproof/frameproof/sim/choice"
)

// A poll that answers deferred with a handle pi refuses leaves the run
// suspended on it; the next step faults with pi's message whether it polls,
// waits or reconciles a cancel (runtime/drive/deferred.ts
// readDeferredSourceHandle, read by prepareDeferredPoll and reconcile.ts
// reconcileOperation), as model/lane predicts, and the run is finalized in
// the next process. Its seeds reach every such path.
func TestBadDeferredHandleFaultsEveryPath(t *testing.T) {
	sc, _ := ScenarioByName("bad-deferred-handle")
	want := []string{"(cancelled true) faulted: Deferred source", "(cancelled false) faulted: Deferred source",
		"has an invalid handle", "is missing its assistant handle"}
	seen := map[string]bool{}
	seed := uint64(0)
	for ; len(seen) < len(want); seed++ {
		require.Less(t, seed, uint64(300), "seen %v", seen)
		out := sc.Run(choice.NewSeeded(seed), Options{Backend: "memory"})
		require.False(t, out.Failed, "seed %d: %s: %s", seed, out.Kind, out.Message)
		for _, f := range out.Faults {
			for _, w := range want {
				if strings.Contains(f, w) {
					seen[w] = true
				}
			}
		}
	}
	t.Logf("all reached within %d seeds", seed)
}
