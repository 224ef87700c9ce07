package lane

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// A drive's deferred permit allows one poll, however long the drive runs:
// pi's Drive starts with deferredPermits = pollDeferred ? 1 : 0
// (runtime/types.ts Drive constructor) and the poll intent spends it
// (runtime/drive/deferred.ts publishPollIntent, materialize:
// drive.deferredPermits--), so a poll that answers deferred again leaves
// the drive waiting (prepareDeferredPoll: deferredPermits === 0) and
// Lane.resume returns {status:"suspended"}. The next drive with a permit
// polls once more.
func TestDrivePermitAllowsOnePoll(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		h := newHarness(t, b)
		op := suspend(t, h)
		for poll := 1; poll <= 2; poll++ {
			a := newAcc()
			h.provider.add(seq(a.start(), a.deferred(testHandle)))
		}
		for poll := 1; poll <= 2; poll++ {
			r, err := h.lane.Drive(StepOptions{DeferredPermit: true, WaitForRetry: true})
			require.NoError(t, err)
			require.Equal(t, StepResult{Kind: StepWaiting, Reason: "deferred"}, r, "poll %d", poll)
			require.Len(t, h.provider.requests, 1+poll, "one poll per drive")
			st := h.stateOf(op)
			require.Equal(t, LeafDeferredSuspended, st.At)
			require.Equal(t, poll, st.Poll)
		}
	})
}
