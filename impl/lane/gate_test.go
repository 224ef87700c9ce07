package lane

import (
	"errors"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/frameproof/frameproof/impl/env"
	"github.com/frameproof/frameproof/impl/env/envtest"
	"github.com/frameproof/frameproof/impl/pi"
	"github.com/stretchr/testify/require"
)

// cancelAt installs a listener that requests cancellation once, right
// after the first event of type at (emitted between a step's commit and the
// effect it is about to admit).
func (h *harness) cancelAt(l **Lane, at EventType) {
	fired := false
	h.listener = func(ev Event) env.Future {
		if ev.Type == at && !fired {
			fired = true
			require.NoError(h.t, (*l).RequestCancel())
		}
		return nil
	}
}

// runtime/lane.ts requestOperationAbort + execution/effect-gate.ts admit +
// runtime/drive/generation.ts performGeneration: a cancel after the intent
// committed but before streamSimple is admitted starts no provider request;
// reconcile commits the synthetic aborted response (empty content,
// api "unknown", zero usage, the interruption warning) under the reserved ids.
func TestCancelBeforeAdmissionStartsNoProviderRequest(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		h := newHarness(t, b)
		h.provider.add(helloScript())
		var l *Lane
		h.cancelAt(&l, EvTurnStart)
		l = h.open()
		op := h.start(3)
		r, err := l.Drive(StepOptions{})
		require.NoError(t, err)
		require.Equal(t, StepSettled, r.Kind)
		require.Empty(t, h.provider.requests, "the provider was called after the cancel began")
		st, err := h.store.Entries()
		require.NoError(t, err)
		resp := st[len(st)-1].Entry.ID
		m := h.entryMessage(resp)
		require.Empty(t, m.Content)
		require.Equal(t, "unknown", m.API)
		require.Equal(t, pi.StopAborted, m.StopReason)
		require.Equal(t, InterruptedWarning, *m.ErrorMessage)
		require.Equal(t, ZeroUsage(), m.Usage)
		require.Contains(t, h.resultOf(op), `"status":"aborted"`)
		require.Equal(t, []string{"lane_created", "run_start", "message_start", "message_end", "entry_added", "turn_start", "operation_abort", "message_start(recovery)", "message_end(recovery)",
			"entry_added(recovery)", "usage", "run_end"}, h.eventTypes())
	})
}

// runtime/drive/deferred.ts performDeferredPoll: the poll is admitted
// through the same gate; a cancel after the poll intent starts no poll.
func TestCancelBeforePollAdmissionStartsNoPoll(t *testing.T) {
	h := newHarness(t, backends[0])
	a := newAcc()
	h.provider.add(seq(a.start(), a.deferred(pi.DeferredHandle{Provider: "openai", ModelID: "gpt-test", API: a.m.API, ID: "job"})))
	l := h.open()
	h.start(1)
	r, err := l.Drive(StepOptions{})
	require.NoError(t, err)
	require.Equal(t, StepWaiting, r.Kind)
	require.Len(t, h.provider.requests, 1)
	h.cancelAt(&l, EvTurnStart) // the poll intent's turn_start
	r, err = l.Drive(StepOptions{DeferredPermit: true})
	require.NoError(t, err)
	require.Equal(t, StepSettled, r.Kind)
	require.Len(t, h.provider.requests, 1, "a poll was started after the cancel began")
}

// runtime/drive/retry.ts waitUntil: a cancel signalled during a retry wait
// ends the wait; the drive then reconciles to the aborted terminal.
func TestCancelInterruptsRetryWait(t *testing.T) {
	h := newHarness(t, backends[0])
	clock := &wakeClock{Clock: h.clock, slept: make(chan time.Duration, 8), release: make(chan struct{})}
	h.sleeper = clock
	a := newAcc()
	h.provider.add(seq(a.start(), a.fail(pi.StopError, "overloaded")))
	l := h.open()
	op := h.start(3)
	r, err := l.Step(StepOptions{})
	require.NoError(t, err)
	require.Equal(t, StepProgress, r.Kind)
	require.Equal(t, LeafAssistantRetryWait, h.stateOf(op).At)
	// The step's error comes back on the channel: require must not run
	// outside the test goroutine (FailNow there would leave done empty).
	done := make(chan error, 1)
	go func() {
		var err error
		r, err = l.Step(StepOptions{WaitForRetry: true})
		done <- err
	}()
	require.Equal(t, time.Second, <-clock.slept) // the wait armed its timer
	defer close(clock.release)
	require.NoError(t, l.RequestCancel())
	select {
	case err = <-done:
		require.NoError(t, err)
	case <-time.After(10 * time.Second): // a liveness guard, not a speed check
		t.Fatal("the retry wait did not end at the cancel")
	}
	require.Equal(t, StepProgress, r.Kind)
	require.Equal(t, LeafAssistantRetryWait, h.stateOf(op).At, "the wait ended without moving to ready")
	r, err = l.Drive(StepOptions{WaitForRetry: true})
	require.NoError(t, err)
	require.Equal(t, StepSettled, r.Kind)
	require.Equal(t, "aborted", r.Status)
	require.Len(t, h.provider.requests, 1)
}

// runtime/drive/retry.ts waitUntil: timers are at most 2_147_483_647 ms and
// notBefore is re-checked after each, so a long delay waits in full (the old
// ms→ns conversion wrapped: base 1000 ms from attempt 35 retried at once).
func TestRetryWaitChunksLongDelays(t *testing.T) {
	h := newHarness(t, backends[0])
	clock := &wakeClock{Clock: h.clock}
	h.sleeper = clock
	l := h.open()
	start := h.clock.Now().UnixMilli()
	uncapped := math.Inf(1) // MaxAgentDelayMs lifts pi-ai's 60 s cap
	notBefore := RetryNotBefore(RetryPolicy{BaseDelayMs: 1000, MaxAgentDelayMs: &uncapped}, 35, float64(start))
	require.NoError(t, l.waitUntil("op", notBefore))
	require.Equal(t, int64(notBefore), h.clock.Now().UnixMilli())
	chunks := clock.all
	require.Greater(t, len(chunks), 1)
	for _, c := range chunks[:len(chunks)-1] {
		require.Equal(t, time.Duration(maxTimerMs)*time.Millisecond, c)
	}
}

// wakeClock is the test clock whose Sleep records each timer (all), reports
// it on slept when set, and blocks until release is closed when set.
type wakeClock struct {
	*envtest.Clock
	mu      sync.Mutex
	all     []time.Duration
	slept   chan time.Duration
	release chan struct{}
}

func (c *wakeClock) Sleep(d time.Duration) {
	c.mu.Lock()
	c.all = append(c.all, d)
	c.mu.Unlock()
	if c.slept != nil {
		c.slept <- d
	}
	if c.release != nil {
		<-c.release
	}
	c.Clock.Sleep(d)
}

// execution/effect-gate.js check(): Harness.close seals the lane, whose
// active drive's gate closes (runtime/lane.js seal), so a drive whose
// intent commit was parked when the harness closed lands it and then
// admits no provider request (generation.js performGeneration's
// drive.gate.admit throws the close error).
func TestCloseBeforeAdmissionStartsNoRequest(t *testing.T) {
	h := newHarness(t, backends[0])
	l := h.open()
	h.start(1)
	gate := env.Goroutines{}.NewFuture("intent")
	h.gated.mu.Lock()
	h.gated.gate, h.gated.match = gate, nil
	h.gated.mu.Unlock()
	stepped := make(chan error, 1)
	go func() {
		_, err := l.Step(StepOptions{})
		stepped <- err
	}()
	parked := func() bool { h.gated.mu.Lock(); defer h.gated.mu.Unlock(); return h.gated.parked == 1 }
	require.Eventually(t, parked, 5*time.Second, time.Millisecond, "the intent commit parks")
	closed := make(chan error, 1)
	go func() { closed <- l.Close() }()
	require.Eventually(t, func() bool { return errors.Is(l.usable(), ErrClosed) }, 5*time.Second, time.Millisecond)
	gate.Resolve(nil)
	require.ErrorIs(t, <-stepped, ErrClosed)
	require.NoError(t, <-closed)
	require.Equal(t, LeafAssistantEffectPending, h.stateOf(h.lane.Current().ID).At, "the parked intent landed")
	h.provider.mu.Lock()
	defer h.provider.mu.Unlock()
	require.Empty(t, h.provider.requests, "no provider request after the close")
}
