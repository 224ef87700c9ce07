package lane

import (
	"testing"

	"github.com/frameproof/frameproof/impl/env"
	"github.com/stretchr/testify/require"
)

// After an external finalization the provider loop keeps consuming its now
// fenced stream, but the snapshot shows no partial: pi's fold lands
// message_update only on a matching current operation, and the capture has
// no operation after the terminal TX.
func TestSnapshotHidesFencedLivePartialAfterExternalFinalization(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		h := newHarness(t, b)
		h.skipStale = true // the settlement races an external finalization
		l := h.open()
		h.start(1)
		s := helloScript()
		var fin env.Future
		var before, after *Snapshot
		s.before = func(i int) {
			var err error
			switch i {
			case 2:
				before, err = l.Snapshot()
				require.NoError(t, err)
				fin = l.FinalizeAsync("aborted", nil)
				require.NoError(t, fin.Wait())
			case 4:
				after, err = l.Snapshot()
				require.NoError(t, err)
			}
		}
		h.provider.add(s)
		_, err := l.Drive(StepOptions{})
		require.NoError(t, err)
		require.True(t, before.Live, "owned stream: live partial")
		require.NotNil(t, before.StreamingMessage)
		require.Empty(t, after.OperationID, "finalized")
		require.False(t, after.Live, "the fenced stream no longer owns the snapshot")
		require.Nil(t, after.StreamingMessage)
	})
}

// runtime/drive/terminal.ts operationResultRecord: an error only with
// "failed", and "failed" only with an error; a mismatch commits nothing.
func TestFinalizeRefusesErrorNotMatchingStatus(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		h := newHarness(t, b)
		l := h.open()
		op := h.start(1)
		oe := &OpError{Code: "external", Message: "x"}
		for _, status := range []string{"completed", "aborted"} {
			err := l.Finalize(status, oe)
			require.ErrorIs(t, err, ErrResultError, status)
			require.EqualError(t, err, "Only a failed operation result may carry an error")
		}
		require.ErrorIs(t, l.Finalize("failed", nil), ErrResultError, "failed without an error")
		require.NotNil(t, h.stateOf(op), "nothing committed")
		require.Empty(t, h.resultOf(op))
		require.NoError(t, l.Finalize("failed", oe), "the lane is still usable")
		require.Contains(t, h.resultOf(op), `"status":"failed","error":{"code":"external","message":"x"}`)
	})
}
