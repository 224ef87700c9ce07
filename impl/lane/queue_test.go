package lane

import (
	"testing"

	"github.com/frameproof/frameproof/impl/store"
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
		s := h.enqueue(QueueSteer, "a")
		var shape []string
		for _, r := range h.tele {
			shape = append(shape, r.Op+" "+r.Namespace+":"+r.Key)
		}
		require.Equal(t, []string{"set pi.pending.entry:" + s, "set pi.lane.state:main"}, shape)
		pe, err := h.store.GetValue(valueAddr(NSPendingEntry, s))
		require.NoError(t, err)
		require.JSONEq(t, `{"type":"message","payload":{"role":"user","content":[{"type":"text","text":"a"}],"timestamp":`+
			itoa(int(h.clock.Now().UnixMilli()))+`}}`, string(pe.Value))
		n := h.enqueue(QueueNextRun, "b")
		f := h.enqueue(QueueFollowUp, "c")
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

// teleShape is the telemetry recorded so far as "op namespace:key".
func teleShape(h *harness) []string {
	var shape []string
	for _, r := range h.tele {
		shape = append(shape, r.Op+" "+r.Namespace+":"+r.Key)
	}
	return shape
}

// runtime/lane.ts cancelQueued: one TX deletes the item's pending entry and
// sets the lane state without the item (the current operation kept); its
// batch is queue_update with the remaining queues; the result is
// "cancelled".
func TestCancelQueuedRemovesTheItem(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		h := newHarness(t, b)
		l := h.open()
		op := h.start(1)
		s := h.enqueue(QueueSteer, "s")
		n := h.enqueue(QueueNextRun, "n")
		f := h.enqueue(QueueFollowUp, "f")
		h.resetEvents()
		res, err := l.CancelQueued(n)
		require.NoError(t, err)
		require.Equal(t, QueueCancelled, res)
		require.Equal(t, []string{"delete pi.pending.entry:" + n, "set pi.lane.state:main"}, teleShape(h))
		ls, err := h.store.GetValue(LaneStateAddr("main"))
		require.NoError(t, err)
		require.JSONEq(t, `{"currentOperationId":"`+op+`","lastOperationId":null,"inbox":[{"entryId":"`+s+`","kind":"steer"},{"entryId":"`+f+`","kind":"followUp"}]}`, string(ls.Value))
		require.Equal(t, []string{"queue_update"}, h.eventTypes())
		require.Equal(t, []string{"steer:" + s, "followUp:" + f}, queueIDs(h.queueUpdates()[0]))
	})
}

// runtime/lane.ts cancelQueued: an id the inbox does not hold commits and
// emits nothing: "already_consumed" when an entry has the id (any entry,
// as reader.getEntries: here the run's prompt), "not_found" otherwise.
func TestCancelQueuedOfAnUnqueuedID(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		h := newHarness(t, b)
		l := h.open()
		h.start(1)
		entries, err := h.store.Entries()
		require.NoError(t, err)
		h.resetEvents()
		res, err := l.CancelQueued(entries[0].Entry.ID)
		require.NoError(t, err)
		require.Equal(t, QueueAlreadyConsumed, res)
		res, err = l.CancelQueued("no-such-id")
		require.NoError(t, err)
		require.Equal(t, QueueNotFound, res)
		require.Empty(t, h.tele)
		require.Empty(t, h.eventTypes())
	})
}

// runtime/lane.ts cancelQueued: a queued item without its pending entry is
// pi's SessionInvariantError `Queued <kind> entry <id> is missing its
// payload`, which faults the harness; nothing commits.
func TestCancelQueuedFaultsOnAMissingPayload(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		h := newHarness(t, b)
		h.open()
		op := h.start(1)
		_, err := h.store.Commit([]store.Write{
			store.SetValueRaw(LaneStateAddr("main"), []byte(`{"currentOperationId":"`+op+`","lastOperationId":null,"inbox":[{"entryId":"w1","kind":"write"}]}`)),
		})
		require.NoError(t, err)
		l := h.open()
		h.resetEvents()
		_, err = l.CancelQueued("w1")
		var hf *HarnessFault
		require.ErrorAs(t, err, &hf)
		require.Equal(t, "Queued write entry w1 is missing its payload", hf.Cause.Error())
		require.Empty(t, h.tele)
	})
}
