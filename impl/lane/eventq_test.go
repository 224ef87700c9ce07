package lane

import (
	"errors"
	"testing"
	"time"

	"github.com/frameproof/frameproof/impl/env"
	"github.com/frameproof/frameproof/impl/pi"
	"github.com/frameproof/frameproof/impl/store"
	"github.com/stretchr/testify/require"
)

// queueUpdates returns the queue_update events recorded so far.
func (h *harness) queueUpdates() []Event {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []Event
	for _, e := range h.events {
		if e.Type == EvQueueUpdate {
			out = append(out, e)
		}
	}
	return out
}

// queueIDs is a queue_update's queues as "kind:entryId" items.
func queueIDs(ev Event) []string {
	out := []string{}
	for _, q := range ev.Queues.Array() {
		out = append(out, q.Prop("kind").Str()+":"+q.Prop("entryId").Str())
	}
	return out
}

// runtime/lane.ts enqueue: its command's batch is one queue_update with the
// queues before it (readLaneQueues) plus the new item {entryId, kind,
// type:"message", message}.
func TestEnqueueEmitsQueueUpdateWithEveryQueuedItem(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		h := newHarness(t, b)
		h.open()
		h.start(1)
		h.resetEvents()
		s := h.enqueue(QueueSteer, "s")
		n := h.enqueue(QueueNextRun, "n")
		require.Equal(t, []string{"queue_update", "queue_update"}, h.eventTypes())
		qs := h.queueUpdates()
		require.Equal(t, []string{"steer:" + s}, queueIDs(qs[0]))
		require.Equal(t, []string{"steer:" + s, "nextRun:" + n}, queueIDs(qs[1]))
		last := qs[1].Queues.Array()[1]
		require.Equal(t, `{"entryId":"`+n+`","kind":"nextRun","type":"message","message":{"role":"user","content":[{"type":"text","text":"n"}],"timestamp":`+
			string(last.Prop("message").Prop("timestamp").AppendJSON(nil))+`}}`, string(last.AppendJSON(nil)))
	})
}

// runtime/lane.ts requestOperationAbort: the batch opens with
// operation_abort; a request that removes queued steer and followUp items
// then emits queue_update with the remaining queues; a request that
// removes none emits operation_abort alone, and a repeated request emits
// nothing.
func TestRequestCancelEmitsQueueUpdateOnlyWhenItRemovesQueuedInput(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		h := newHarness(t, b)
		l := h.open()
		h.start(1)
		n := h.enqueue(QueueNextRun, "n")
		h.enqueue(QueueSteer, "s")
		h.enqueue(QueueFollowUp, "f")
		h.resetEvents()
		require.NoError(t, l.RequestCancel())
		require.Equal(t, []string{"operation_abort", "queue_update"}, h.eventTypes())
		require.Equal(t, []string{"nextRun:" + n}, queueIDs(h.queueUpdates()[0]))
		h.resetEvents()
		require.NoError(t, l.RequestCancel()) // already cancel_requested
		require.Empty(t, h.eventTypes())
	})
	forEachBackend(t, func(t *testing.T, b backend) {
		h := newHarness(t, b)
		l := h.open()
		h.start(1)
		h.enqueue(QueueNextRun, "n")
		h.resetEvents()
		require.NoError(t, l.RequestCancel()) // removes nothing
		require.Equal(t, []string{"operation_abort"}, h.eventTypes())
	})
}

// runtime/lane.ts command (emitBatch inside session.mutate, delivery
// awaited after) and events.ts emitBatch: an enqueue that commits while a
// run's acceptance batch is still being delivered hands its queue_update
// over after that batch, never between run_start and the prompt's
// message_start.
func TestQueueUpdateNeverFallsInsideAnotherCommandsBatch(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		h := newHarness(t, b)
		l := h.open()
		_, err := l.StartRun(defaultRun(1))
		require.NoError(t, err)
		require.NoError(t, l.Finalize("aborted", nil))
		h.enqueue(QueueNextRun, "early")
		h.resetEvents()
		hold := env.Goroutines{}.NewFuture("hold")
		enqueued := env.Goroutines{}.NewFuture("enqueued")
		fired := false
		h.mu.Lock()
		h.listener = func(ev Event) env.Future {
			if ev.Type != EvRunStart || fired {
				return nil
			}
			fired = true
			// run_start's delivery holds the rest of the run's batch while
			// an enqueue commits behind it on the line. The hook is set
			// before the enqueue starts: set after, it missed a commit that
			// came first, and the delivery waited forever (one run in about
			// a hundred under -race).
			h.mu.Lock()
			h.onTele = func(r TelemetryRecord) {
				if r.Namespace == NSPendingEntry && r.Op == "set" {
					hold.Resolve(nil)
				}
			}
			h.mu.Unlock()
			env.Goroutines{}.Go("enqueue", func() {
				_, err := l.Enqueue(QueueSteer, "s")
				if err != nil {
					hold.Resolve(nil) // no commit to wait for: fail below, not hang
				}
				enqueued.Resolve(err)
			})
			return hold
		}
		h.mu.Unlock()
		_, err = l.StartRun(defaultRun(1))
		require.NoError(t, err)
		require.NoError(t, enqueued.Wait())
		// acceptRun captured the nextRun item: its lifecycle precedes the prompt's
		require.Equal(t, []string{"run_start", "message_start", "message_end", "entry_added",
			"message_start", "message_end", "entry_added", "queue_update", "queue_update"}, h.eventTypes())
	})
}

// events.ts HarnessEventBus (delivery off the session line) with
// runtime/lane.ts enqueue: a listener that calls the lane from inside its
// delivery (an enqueue at turn_start, whose own queue_update is still to
// be delivered) does not deadlock; its batch follows the one it was
// called from.
func TestListenerCallingTheLaneFromItsDeliveryDoesNotDeadlock(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		h := newHarness(t, b)
		h.provider.add(helloScript())
		l := h.open()
		fired := false
		h.listener = func(ev Event) env.Future {
			if ev.Type == EvTurnStart && !fired {
				fired = true
				h.enqueue(QueueNextRun, "from the listener")
			}
			return nil
		}
		h.start(1)
		r, err := l.Drive(StepOptions{})
		require.NoError(t, err)
		require.Equal(t, StepSettled, r.Kind)
		types := h.eventTypes()
		i := indexOf(types, "turn_start")
		require.GreaterOrEqual(t, i, 0)
		require.Equal(t, "queue_update", types[i+1], "%v", types)
		q := h.queueUpdates()
		require.Len(t, q, 1)
		require.Equal(t, pi.String, q[0].Queues.Array()[0].Prop("entryId").Kind())
	})
}

func indexOf(xs []string, x string) int {
	for i, s := range xs {
		if s == x {
			return i
		}
	}
	return -1
}

// events.ts HarnessEventBus.deliver: a handler that throws does not stop
// the bus (it is reported as handler_error); later batches are still
// delivered (emitBatch's deliveryTail). Here a listener panic propagates to
// the lane call delivering it, and the next call's batch still reaches
// the listener (the queue's flags used to stay set, so every later batch
// was silently dropped).
func TestListenerPanicLeavesTheQueueDelivering(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		h := newHarness(t, b)
		l := h.open()
		h.start(1)
		panicked := false
		h.listener = func(ev Event) env.Future {
			if ev.Type == EvQueueUpdate && !panicked {
				panicked = true
				panic("listener failed")
			}
			return nil
		}
		require.Panics(t, func() { _, _ = l.Enqueue(QueueNextRun, "first") })
		h.resetEvents()
		h.enqueue(QueueNextRun, "second")
		require.Equal(t, []string{"queue_update"}, h.eventTypes())
	})
}

// runtime/lane.ts requestOperationAbort: the gate is settled and the
// drive's abort signalled in the command's materialize, before its batch
// (operation_abort) is delivered, so a listener handling operation_abort
// sees the stream already told to stop.
func TestRequestCancelSignalsTheDriveBeforeDeliveringItsBatch(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		h := newHarness(t, b)
		l := h.open()
		h.start(1)
		seen := false
		h.listener = func(ev Event) env.Future {
			if ev.Type == EvOperationAbort {
				l.mu.Lock()
				g := l.gate
				seen = g != nil && g.signalled && g.cancellation != nil && g.cancellation.Done()
				l.mu.Unlock()
			}
			return nil
		}
		require.NoError(t, l.RequestCancel())
		require.Contains(t, h.eventTypes(), "operation_abort")
		require.True(t, seen, "operation_abort was delivered before the drive's abort was signalled")
	})
}

// runtime/harness.js close closes the event bus at once (events.js close:
// emitBatch on a closed bus delivers nothing), so the batch of a command
// whose commit was parked when the harness closed is never delivered, even
// though the commit lands during the close.
func TestCloseDeliversNoLaterBatch(t *testing.T) {
	h := newHarness(t, backends[0])
	l := h.open()
	h.start(1) // the lane exists; the next run's acceptance is one command
	r, err := l.Drive(StepOptions{})
	require.NoError(t, err)
	require.Equal(t, StepSettled, r.Kind, "no script: the generation fails and settles the run")
	h.resetEvents()
	gate := env.Goroutines{}.NewFuture("accept")
	h.gated.mu.Lock()
	h.gated.gate, h.gated.match = gate, func(ws []store.Write) bool { return ws[0].Kind == store.WriteEntry }
	h.gated.mu.Unlock()
	started := make(chan error, 1)
	go func() {
		_, err := l.StartRun(defaultRun(1))
		started <- err
	}()
	parked := func() bool { h.gated.mu.Lock(); defer h.gated.mu.Unlock(); return h.gated.parked == 1 }
	require.Eventually(t, parked, 5*time.Second, time.Millisecond, "the acceptance parks")
	closed := make(chan error, 1)
	go func() { closed <- l.Close() }()
	require.Eventually(t, func() bool { return errors.Is(l.usable(), ErrClosed) }, 5*time.Second, time.Millisecond)
	gate.Resolve(nil)
	require.NoError(t, <-started, "the parked acceptance lands")
	require.NoError(t, <-closed)
	require.Empty(t, h.eventTypes(), "nothing is delivered after the close")
}
