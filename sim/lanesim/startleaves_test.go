package lanesim

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/frameproof/frameproof/sim/choice"
)

// A process lost while its run is at `starting` or at the initial
// checkpoint reopens there and resumes with startRun or runCheckpoint
// (runtime/drive.ts driveOperation dispatches on the restored leaf), and a
// cancel committed at either leaf is reconciled by the aborted terminal
// (runtime/drive/reconcile.ts): the runs pass with the lockstep model
// comparing every transaction. Seeds are searched until each case
// happened.
func TestStartLeavesSurviveCrashAndCancel(t *testing.T) {
	want := []string{"restored-at-starting", "restored-at-checkpoint", "cancelled-at-starting", "cancelled-at-checkpoint"}
	reached := map[string]int{}
	missing := func() bool {
		for _, o := range want {
			if reached[o] == 0 {
				return true
			}
		}
		return false
	}
	for seed := uint64(0); seed < 1000 && missing(); seed++ {
		for _, name := range []string{"crash-with-queued-writes", "deferred-replacement", SwarmScenario} {
			sc, ok := ScenarioByName(name)
			require.True(t, ok, name)
			out := sc.Run(choice.NewSeeded(seed), Options{})
			require.False(t, out.Failed, "%s seed %d: %s: %s", name, seed, out.Kind, out.Message)
			for _, o := range out.RaceOrders[rowStartLeaves] {
				reached[o]++
			}
		}
	}
	for _, o := range want {
		require.Positive(t, reached[o], "no run reached %s (reached %v)", o, reached)
	}
	t.Logf("start leaves reached: %v", reached)
}
