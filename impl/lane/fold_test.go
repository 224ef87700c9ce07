package lane

import (
	"testing"

	"github.com/frameproof/frameproof/impl/env"
	"github.com/frameproof/frameproof/impl/pi"
	"github.com/stretchr/testify/require"
)

// runtime/lane.ts captureLaneSnapshot: mid-stream the capture is the
// reduction of the committed frames, never the live partial.
func TestCaptureShowsCommittedFramesNotLivePartial(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		h := newHarness(t, b)
		l := h.open()
		op := h.start(1)
		s := helloScript()
		checked := 0
		s.before = func(i int) {
			if i < 2 {
				return
			}
			// frames commit concurrently: the capture reduces a committed
			// prefix between the lists read before and after it
			st := h.stateOf(op)
			before := h.frameList(op, st.ResponseEntryID)
			c, err := l.Capture()
			require.NoError(t, err)
			after := h.frameList(op, st.ResponseEntryID)
			require.False(t, c.Live, "event %d", i)
			got, matched := marshalFold(t, c.StreamingMessage), false
			for n := len(before); n <= len(after) && !matched; n++ {
				fs := make([]pi.JSONValue, n)
				for k, e := range after[:n] {
					fs[k], err = pi.ParseJSON(string(e.Value))
					require.NoError(t, err)
				}
				want, _, err := reduceStored(fs)
				require.NoError(t, err)
				matched = got == marshalFold(t, want)
			}
			require.True(t, matched, "event %d: capture %s is no committed reduction", i, got)
			checked++
		}
		h.provider.add(s)
		_, err := l.Drive(StepOptions{})
		require.NoError(t, err)
		require.Equal(t, len(s.events)-2, checked)
	})
}

// runtime/reducer.ts reduceLaneSnapshot: message_start/message_update land
// the live partial on the matching operation (it takes precedence over the
// captured reduction), message_end drops it, run_end drops the operation.
func TestClientFoldLivePartialTakesPrecedence(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		h := newHarness(t, b)
		l := h.open()
		h.start(1)
		c, err := l.Capture()
		require.NoError(t, err)
		fold := NewClientFold(c)
		var atEnd *ClientFold
		h.listener = func(ev Event) env.Future {
			fold.Apply(ev)
			if ev.Type == EvMessageEnd {
				cp := *fold
				atEnd = &cp
			}
			return nil
		}
		s := helloScript()
		s.before = func(i int) {
			if i < 1 {
				return
			}
			snap, err := l.Snapshot()
			require.NoError(t, err)
			require.True(t, snap.Live, "event %d", i)
			require.NotNil(t, fold.StreamingMessage, "event %d", i)
			require.Equal(t, marshalFold(t, snap.StreamingMessage), marshalFold(t, fold.StreamingMessage), "event %d: the live partial", i)
		}
		h.provider.add(s)
		_, err = l.Drive(StepOptions{})
		require.NoError(t, err)
		require.NotNil(t, atEnd)
		require.Nil(t, atEnd.StreamingMessage, "message_end drops the live partial")
		require.NotEmpty(t, atEnd.OperationID, "the operation is still current at message_end")
		require.Empty(t, fold.OperationID, "run_end")
		require.Equal(t, *l.view.tip, *fold.TipID)
	})
}

// reduceLaneSnapshot: a message_start whose message is not pending (the
// synthetic start of a recovered or reconciled response) and events of
// another run or lane leave the streaming message alone.
func TestClientFoldIgnoresNonPendingStartsAndOtherRuns(t *testing.T) {
	partial := &pi.AssistantMessage{StopReason: pi.StopPending}
	f := NewClientFold(&Snapshot{Lane: "main", OperationID: "op"})
	f.Apply(Event{Type: EvMessageStart, Lane: "main", RunID: "op", Message: &pi.AssistantMessage{StopReason: pi.StopError}})
	require.Nil(t, f.StreamingMessage)
	f.Apply(Event{Type: EvMessageStart, Lane: "main", RunID: "other", Message: partial})
	require.Nil(t, f.StreamingMessage)
	f.Apply(Event{Type: EvMessageUpdate, Lane: "side", RunID: "op", Message: partial})
	require.Nil(t, f.StreamingMessage)
	f.Apply(Event{Type: EvMessageStart, Lane: "main", RunID: "op", Message: partial})
	require.NotNil(t, f.StreamingMessage)
	f.Apply(Event{Type: EvRunSuspend, Lane: "main", RunID: "op"})
	require.Nil(t, f.StreamingMessage)
}

func marshalFold(t *testing.T, m *pi.AssistantMessage) string {
	if m == nil {
		return ""
	}
	b, err := pi.Marshal(m)
	require.NoError(t, err)
	return string(b)
}

// runtime/reducer.ts reduceLaneSnapshot queue_update (snapshot.queues =
// event.queues) over runtime/lane.ts captureLaneSnapshot's queues: a client
// that captured the lane and folds every event since shows the lane's
// queued items after enqueues and a cancel that removed some, and ignores
// another lane's queue_update.
func TestClientFoldFollowsQueueUpdates(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		h := newHarness(t, b)
		l := h.open()
		h.start(1)
		n := h.enqueue(QueueNextRun, "n")
		c, err := l.Capture()
		require.NoError(t, err)
		require.Equal(t, []string{"nextRun:" + n}, queueIDs(Event{Queues: c.Queues}))
		fold := NewClientFold(c)
		h.resetEvents()
		s := h.enqueue(QueueSteer, "s")
		for _, ev := range h.events {
			fold.Apply(ev)
		}
		require.Equal(t, []string{"nextRun:" + n, "steer:" + s}, queueIDs(Event{Queues: fold.Queues}))
		fold.Apply(Event{Type: EvQueueUpdate, Lane: "other", Queues: pi.ArrayValue(nil)})
		require.Len(t, fold.Queues.Array(), 2)
		h.resetEvents()
		require.NoError(t, l.RequestCancel())
		for _, ev := range h.events {
			fold.Apply(ev)
		}
		c, err = l.Capture()
		require.NoError(t, err)
		require.Equal(t, queueIDs(Event{Queues: c.Queues}), queueIDs(Event{Queues: fold.Queues}))
		require.Equal(t, []string{"nextRun:" + n}, queueIDs(Event{Queues: fold.Queues}))
	})
}

// runtime/reducer.ts reduceLaneSnapshot operation_abort: the operation the
// event names (matchingOperation) turns "aborting"; an event naming
// another operation or lane changes nothing; a capture of a cancelled
// operation starts aborting (captureLaneSnapshot's status).
func TestClientFoldMarksTheAbortedOperationAborting(t *testing.T) {
	f := NewClientFold(&Snapshot{Lane: "main", OperationID: "op"})
	f.Apply(Event{Type: EvOperationAbort, Lane: "main", OperationID: "other"})
	f.Apply(Event{Type: EvOperationAbort, Lane: "side", OperationID: "op"})
	require.False(t, f.Aborting)
	f.Apply(Event{Type: EvOperationAbort, Lane: "main", OperationID: "op"})
	require.True(t, f.Aborting)
	f.Apply(Event{Type: EvRunEnd, Lane: "main", RunID: "op"})
	require.False(t, f.Aborting)
	forEachBackend(t, func(t *testing.T, b backend) {
		h := newHarness(t, b)
		l := h.open()
		h.start(1)
		c, err := l.Capture()
		require.NoError(t, err)
		fold := NewClientFold(c)
		h.resetEvents()
		require.NoError(t, l.RequestCancel())
		for _, ev := range h.events {
			fold.Apply(ev)
		}
		require.True(t, fold.Aborting)
		c, err = l.Capture()
		require.NoError(t, err)
		require.True(t, NewClientFold(c).Aborting)
	})
}
