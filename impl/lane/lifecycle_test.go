package lane

import (
	"testing"

	"github.com/frameproof/frameproof/impl/pi"
	"github.com/stretchr/testify/require"
)

func TestSmokeNormalResponse(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		h := newHarness(t, b)
		l := h.open()
		op := h.start(3)
		h.provider.add(helloScript())
		r, err := l.Drive(StepOptions{})
		require.NoError(t, err)
		require.Equal(t, StepSettled, r.Kind, "%+v", r)
		require.Equal(t, "completed", r.Status)
		require.Equal(t, []string{"run_start", "message_start", "message_end", "entry_added", "turn_start", "message_start", "message_update", "message_update", "message_update", "message_update", "message_end", "entry_added", "usage", "turn_end", "run_end"}, h.eventTypes())
		resp := h.provider.requests[0].ResponseEntryID
		require.Empty(t, h.frameList(op, resp))
		require.Equal(t, "hello world", textOf(h.entryMessage(resp)))
		require.Nil(t, h.stateOf(op))
		require.Contains(t, h.resultOf(op), `"status":"completed"`)
		_ = pi.StopStop
	})
}
