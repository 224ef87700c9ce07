package lane

import (
	"testing"

	"github.com/frameproof/frameproof/impl/pi"
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

// runtime/lane.ts requestOperationAbort: operation_abort carries the
// operation's id, the removed steer messages and the removed followUp
// messages (each pending entry's payload, in inbox order, empty arrays
// when none), and comes before queue_update in the same batch.
func TestRequestCancelEmitsOperationAbortWithRemovedMessages(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		h := newHarness(t, b)
		l := h.open()
		op := h.start(1)
		s1 := h.enqueue(QueueSteer, "s1")
		h.enqueue(QueueNextRun, "n")
		s2 := h.enqueue(QueueSteer, "s2")
		want := map[string]string{}
		for _, id := range []string{s1, s2} {
			v, err := h.store.GetValue(PendingEntryAddr(id))
			require.NoError(t, err)
			p, err := pi.ParseJSON(string(v.Value))
			require.NoError(t, err)
			want[id] = string(p.Prop("payload").AppendJSON(nil))
		}
		h.resetEvents()
		require.NoError(t, l.RequestCancel())
		require.Equal(t, []string{"operation_abort", "queue_update"}, h.eventTypes())
		ev := h.events[0]
		require.Equal(t, op, ev.OperationID)
		require.Equal(t, "main", ev.Lane)
		require.Equal(t, "["+want[s1]+","+want[s2]+"]", string(ev.Steer.AppendJSON(nil)))
		require.Equal(t, "[]", string(ev.FollowUp.AppendJSON(nil)))
	})
}

// runtime/lane.ts requestOperationAbort: a repeated request (control
// already cancel_requested, newlyRequested false) and a request with no
// current operation commit nothing and emit nothing.
func TestRequestCancelRepeatedOrIdleCommitsAndEmitsNothing(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		h := newHarness(t, b)
		l := h.open()
		h.resetEvents()
		require.NoError(t, l.RequestCancel()) // idle
		require.Empty(t, h.tele)
		require.Empty(t, h.eventTypes())
		h.start(1)
		require.NoError(t, l.RequestCancel())
		h.resetEvents()
		require.NoError(t, l.RequestCancel()) // repeated
		require.Empty(t, h.tele)
		require.Empty(t, h.eventTypes())
	})
}

// runtime/lane.ts requestOperationAbort: a removed item whose pending
// entry is not a message is pi's SessionInvariantError `Pending <kind>
// entry <id> is missing its message`, which faults the harness; nothing
// commits.
func TestRequestCancelFaultsOnRemovedItemWithoutMessage(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		h := newHarness(t, b)
		h.open()
		op := h.start(1)
		_, err := h.store.Commit([]store.Write{
			store.SetValueRaw(valueAddr(NSPendingEntry, "f1"), []byte(`{"type":"custom","customType":"note"}`)),
			store.SetValueRaw(LaneStateAddr("main"), []byte(`{"currentOperationId":"`+op+`","lastOperationId":null,"inbox":[{"entryId":"f1","kind":"followUp"}]}`)),
		})
		require.NoError(t, err)
		l := h.open()
		h.resetEvents()
		err = l.RequestCancel()
		var hf *HarnessFault
		require.ErrorAs(t, err, &hf)
		require.Equal(t, "Pending followUp entry f1 is missing its message", hf.Cause.Error())
		require.Empty(t, h.tele)
		require.False(t, h.stateOf(op).Control.CancelRequested)
	})
}
