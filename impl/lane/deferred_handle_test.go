package lane

import (
	"testing"

	"github.com/frameproof/frameproof/impl/pi"
	"github.com/stretchr/testify/require"
)

// pollWithBadHandle suspends, then polls once; the poll answers "deferred"
// again with a handle whose id is empty. pi's publishResponse validates a
// handle only for an assistant generation: a poll's deferred response
// settles to deferred.suspended with the poll's entry as the new source.
func pollWithBadHandle(t *testing.T, h *harness) (op, pollResp string) {
	op = suspend(t, h)
	bad := testHandle
	bad.ID = ""
	a := newAcc()
	h.provider.add(seq(a.start(), a.deferred(bad)))
	_, err := h.lane.Step(StepOptions{DeferredPermit: true})
	require.NoError(t, err)
	pollResp = h.provider.requests[1].ResponseEntryID
	st := h.stateOf(op)
	require.Equal(t, LeafDeferredSuspended, st.At, "a poll's handle is not validated at settlement")
	require.Equal(t, pollResp, st.SourceEntryID)
	require.Equal(t, pi.StopDeferred, h.entryMessage(pollResp).StopReason)
	return op, pollResp
}

// The next poll reads the source handle first (before the permit check) and
// faults with pi's readDeferredSourceHandle message.
func TestPollDeferredWithInvalidHandleFaultsAtNextPoll(t *testing.T) {
	h := newHarness(t, backends[0])
	h.open()
	_, pollResp := pollWithBadHandle(t, h)
	_, err := h.lane.Step(StepOptions{})
	require.Error(t, err)
	require.Contains(t, err.Error(), "Deferred source "+pollResp+" has an invalid handle")
	require.Error(t, h.lane.Fault())
}

// Cancellation of that lane faults the same way: pi's reconcile reads the
// deferred source handle before cancelling and terminating.
func TestCancelDeferredWithInvalidHandleFaults(t *testing.T) {
	h := newHarness(t, backends[0])
	h.open()
	op, pollResp := pollWithBadHandle(t, h)
	require.NoError(t, h.lane.RequestCancel())
	_, err := h.lane.Step(StepOptions{})
	require.Error(t, err)
	require.Contains(t, err.Error(), "Deferred source "+pollResp+" has an invalid handle")
	require.Equal(t, LeafDeferredSuspended, h.stateOf(op).At, "nothing terminal committed")
	require.Empty(t, h.resultOf(op))
}
