package lane

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// Enqueue is pi's Lane.enqueue (runtime/lane.ts): the pending entry, then
// the lane state with the item appended; a later cancel removes the queued
// steer and followUp items and keeps nextRun (requestOperationAbort).
func TestEnqueueTXThenCancelRemovesSteering(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		h := newHarness(t, b)
		l := h.open()
		op := h.start(1)
		h.resetEvents()
		s, err := l.Enqueue(QueueSteer, "a")
		require.NoError(t, err)
		var shape []string
		for _, r := range h.tele {
			shape = append(shape, r.Op+" "+r.Namespace+":"+r.Key)
		}
		require.Equal(t, []string{"set pi.pending.entry:" + s, "set pi.lane.state:main"}, shape)
		pe, err := h.store.GetValue(valueAddr(NSPendingEntry, s))
		require.NoError(t, err)
		require.JSONEq(t, `{"type":"message","payload":{"role":"user","content":[{"type":"text","text":"a"}],"timestamp":`+
			itoa(int(h.clock.Now().UnixMilli()))+`}}`, string(pe.Value))
		n, err := l.Enqueue(QueueNextRun, "b")
		require.NoError(t, err)
		f, err := l.Enqueue(QueueFollowUp, "c")
		require.NoError(t, err)
		_, err = l.Enqueue("write", "d")
		require.ErrorContains(t, err, `unknown kind "write"`)
		_, err = l.Enqueue(QueueSteer, "")
		require.ErrorContains(t, err, "Queued input must contain text or an image")

		h.resetEvents()
		require.NoError(t, l.RequestCancel())
		shape = nil
		for _, r := range h.tele {
			shape = append(shape, r.Op+" "+r.Namespace+":"+r.Key)
		}
		require.Equal(t, []string{"delete pi.pending.entry:" + s, "delete pi.pending.entry:" + f,
			"set pi.op.state:" + op, "set pi.lane.state:main"}, shape)
		ls, err := h.store.GetValue(LaneStateAddr("main"))
		require.NoError(t, err)
		require.JSONEq(t, `{"currentOperationId":"`+op+`","lastOperationId":null,"inbox":[{"entryId":"`+n+`","kind":"nextRun"}]}`, string(ls.Value))
	})
}
