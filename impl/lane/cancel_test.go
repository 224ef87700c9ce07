package lane

import (
	"testing"

	"github.com/frameproof/frameproof/impl/store"
	"github.com/stretchr/testify/require"
)

// The cancel TX is pi's requestOperationAbort: delete the pending entries of
// queued steer/followUp items, set the op state, then set the lane state
// without those items (other inbox items stay, in order).
func TestCancelTXRemovesSteeringAndWritesLaneState(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		h := newHarness(t, b)
		h.open()
		op := h.start(1)
		inbox := `[{"entryId":"s1","kind":"steer"},{"entryId":"w1","kind":"write"},{"entryId":"f1","kind":"followUp"}]`
		_, err := h.store.Commit([]store.Write{
			store.SetValueRaw(valueAddr(NSPendingEntry, "s1"), []byte(`{"type":"message","payload":{"role":"user","content":"a","timestamp":1}}`)),
			store.SetValueRaw(valueAddr(NSPendingEntry, "f1"), []byte(`{"type":"message","payload":{"role":"user","content":"b","timestamp":1}}`)),
			// the write item keeps a payload: readLaneQueues reads it for queue_update
			store.SetValueRaw(valueAddr(NSPendingEntry, "w1"), []byte(`{"type":"custom","customType":"note"}`)),
			store.SetValueRaw(LaneStateAddr("main"), []byte(`{"currentOperationId":"`+op+`","lastOperationId":null,"inbox":`+inbox+`}`)),
		})
		require.NoError(t, err)
		l := h.open()
		h.resetEvents()
		require.NoError(t, l.RequestCancel())
		var shape []string
		for _, r := range h.tele {
			shape = append(shape, r.Op+" "+r.Namespace+":"+r.Key)
		}
		require.Equal(t, []string{
			"delete pi.pending.entry:s1", "delete pi.pending.entry:f1",
			"set pi.op.state:" + op, "set pi.lane.state:main",
		}, shape)
		ls, err := h.store.GetValue(LaneStateAddr("main"))
		require.NoError(t, err)
		require.JSONEq(t, `{"currentOperationId":"`+op+`","lastOperationId":null,"inbox":[{"entryId":"w1","kind":"write"}]}`, string(ls.Value))
		require.True(t, h.stateOf(op).Control.CancelRequested)
	})
}
