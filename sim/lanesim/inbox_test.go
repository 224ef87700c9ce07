package lanesim

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// The queuer's steer, followUp and nextRun items leave the inbox as
// entries both at a run's boundary (runtime/drive/boundary.ts
// planBoundaryInbox) and at a later run's acceptance (runtime/lane.ts
// acceptRun, selectAcceptedInbox), and one commit places several items (an
// acceptance, or a boundary under steeringMode or followUpMode "all"): a
// bounded seed search reaches each,
// with the lockstep model comparing each placement's writes and the
// inbox checker (check_inbox.go) each item's single, ordered exit.
func TestSwarmPlacesQueuedInputAtBoundaryAndAcceptance(t *testing.T) {
	reached := searchSwarm(t, 300, rowQueuedInput, func(r map[string]int) bool {
		return r[orderPlacedAtStep] >= 5 && r[orderPlacedAtStart] >= 3 && r[orderPlacedSeveral] >= 2
	})
	require.GreaterOrEqual(t, reached[orderPlacedSeveral], 2, "%v", reached)
	require.GreaterOrEqual(t, reached[orderPlacedAtStep], 5, "%v", reached)
	require.GreaterOrEqual(t, reached[orderPlacedAtStart], 3, "%v", reached)
}
