package lane

import (
	"testing"

	"github.com/frameproof/frameproof/impl/env"
	"github.com/stretchr/testify/require"
)

// lineSpy reports each line item queued under one of its names: the line
// creates an item's "line-settled:"+command future under its lock, in the
// hold that appends the item, so an item queued after the report queues
// behind it.
type lineSpy struct {
	env.Executor
	queued map[string]chan struct{}
}

func (s *lineSpy) NewFuture(name string) env.Completer {
	if ch, ok := s.queued[name]; ok {
		ch <- struct{}{}
	}
	return s.Executor.NewFuture(name)
}

// abortOrder queues a steer, then runs cancel at a moment when a nextRun's
// commit is parked at the head of the mutation line, then cancels the
// queued steer (CancelQueued) once cancel's first line item (Abort's read,
// RequestCancel's cancel) is queued behind it, and releases the commits.
// It returns the operation, cancel's value, CancelQueued's result and the
// harness.
func abortOrder(t *testing.T, b backend, first Command, cancel func(l *Lane) (Aborted, error)) (string, Aborted, CancelQueuedResult, *harness) {
	h := newHarness(t, b)
	line := func(c Command) string { return "line-settled:" + string(c) }
	spy := &lineSpy{Executor: env.Goroutines{}, queued: map[string]chan struct{}{}}
	for _, c := range []Command{CmdEnqueue, CmdCancelQueued, first} {
		spy.queued[line(c)] = make(chan struct{}, 4)
	}
	h.exec = spy
	l := h.open()
	op := h.start(1)
	steer := h.enqueue(QueueSteer, "before")
	<-spy.queued[line(CmdEnqueue)]
	gate := env.Goroutines{}.NewFuture("held")
	h.gated.mu.Lock()
	h.gated.gate = gate
	h.gated.mu.Unlock()
	enqueued := make(chan error, 1)
	go func() { _, err := l.Enqueue(QueueNextRun, "held"); enqueued <- err }()
	<-spy.queued[line(CmdEnqueue)]
	type result struct {
		a   Aborted
		err error
	}
	done := make(chan result, 1)
	go func() { a, err := cancel(l); done <- result{a, err} }()
	<-spy.queued[line(first)]
	type unqueued struct {
		r   CancelQueuedResult
		err error
	}
	unq := make(chan unqueued, 1)
	go func() { r, err := l.CancelQueued(steer); unq <- unqueued{r, err} }()
	<-spy.queued[line(CmdCancelQueued)]
	gate.Resolve(nil)
	require.NoError(t, <-enqueued)
	u := <-unq
	require.NoError(t, u.err)
	r := <-done
	require.NoError(t, r.err)
	return op, r.a, u.r, h
}

// runtime/lane.ts Lane.abort (pi's public abort): it reads the current
// operation on the mutation line, then requests its abort
// (requestOperationAbort), then drives it (Lane.drive). The read waits
// behind the commit parked when the abort was issued, so a CancelQueued
// issued after the abort but queued before the read's turn lands before
// the abort's cancel: it cancels the steer, which the abort then no longer
// removes; and the call returns once the drive settled the operation.
func TestAbortReadsOnTheLineThenRequestsThenDrives(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		op, a, unqueued, h := abortOrder(t, b, CmdAbortRead, (*Lane).Abort)
		require.Equal(t, op, a.OperationID)
		require.Equal(t, QueueCancelled, unqueued, "the CancelQueued issued after the abort lands before its cancel")
		require.Empty(t, a.Steer)
		require.Empty(t, a.FollowUp)
		require.Contains(t, h.resultOf(op), `"status":"aborted"`, "Abort returns after the drive that settles the operation")
		require.Nil(t, h.lane.Current())
	})
}

// runtime/lane.ts requestOperationAbort, which RequestCancel is, queues its
// cancel at once: it removes the steer before the CancelQueued issued
// after it, which finds nothing; nothing drives the operation.
func TestRequestCancelQueuesAtOnce(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		op, _, unqueued, h := abortOrder(t, b, CmdCancel, func(l *Lane) (Aborted, error) { return Aborted{}, l.RequestCancel() })
		require.Equal(t, QueueNotFound, unqueued, "the cancel removed the steer first")
		require.True(t, h.stateOf(op).Control.CancelRequested, "the operation is not driven")
	})
}

// runtime/lane.ts Lane.abort: with no current operation it is
// NoActiveOperation (ErrNoOperation) and commits nothing.
func TestAbortWithoutOperation(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		h := newHarness(t, b)
		l := h.open()
		_, err := l.Abort()
		require.ErrorIs(t, err, ErrNoOperation)
		require.Empty(t, h.tele)
	})
}
