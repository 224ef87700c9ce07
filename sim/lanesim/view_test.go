package lanesim

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/frameproof/frameproof/sim/choice"
)

// The lockstep comparison reads the reference store through an incremental
// view (lanecmp.Changes): on these runs of every scenario and backend, every
// comparison also reads everything again and requires the two to agree
// (verifyViews), so the view compares what the full read compared; every
// invariants check likewise scans the whole log as well as the items since
// the last check (invariants.LogScan). The end of every run checks the same
// once in campaigns too (viewAgrees, the invariants' end-of-run check).
func TestIncrementalViewAgreesWithFullRead(t *testing.T) {
	verifyViews = true
	defer func() { verifyViews = false }()
	seeds := 4
	if testing.Short() {
		seeds = 1
	}
	for _, sc := range Scenarios() {
		for _, be := range Backends() {
			for seed := 1; seed <= seeds; seed++ {
				o := sc.Run(choice.NewSeeded(uint64(seed)), Options{Backend: be})
				require.False(t, o.Failed, "%s on %s, seed %d: %s: %s", sc.Name, be, seed, o.Kind, o.Message)
			}
		}
	}
}
