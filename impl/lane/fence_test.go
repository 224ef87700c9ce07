package lane

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/frameproof/frameproof/impl/env"
	"github.com/frameproof/frameproof/impl/pi"
	"github.com/stretchr/testify/require"
)

// fenceTurn is one line turn the fence proof (progress.owns) talks about:
// an op-state commit (state set; nil state: deleted) or a frame of
// (op, resp) reaching the front of the line.
type fenceTurn struct {
	op, resp string
	frame    bool
	state    *OpState
}

// crossResponseTurns returns every frame turn that found its operation
// effect_pending on another responseEntryId: the state in which only the
// response-id half of the fence decides. The proof at progress.owns says a
// lane process never reaches it.
func crossResponseTurns(log []fenceTurn) []string {
	cur := map[string]*OpState{}
	var bad []string
	for i, t := range log {
		if !t.frame {
			cur[t.op] = t.state
			continue
		}
		if s := cur[t.op]; s != nil && s.At.IsEffectPending() && s.ResponseEntryID != t.resp {
			bad = append(bad, fmt.Sprintf("turn %d: frame of %s:%s while %s on %s", i, t.op, t.resp, s.At, s.ResponseEntryID))
		}
	}
	return bad
}

// recordFenceTurns installs line-order observers on h: op-state commits
// (read back from storage right after the commit, still on the line) and
// frame turns (every outcome but "enqueued").
func recordFenceTurns(t *testing.T, h *harness) func() []fenceTurn {
	var mu sync.Mutex
	var log []fenceTurn
	h.onTele = func(r TelemetryRecord) {
		if r.Namespace != NSOpState || r.Failed {
			return
		}
		v, err := h.store.GetValue(OpStateAddr(r.Key))
		var s *OpState
		if err == nil && v != nil {
			s, err = DecodeState(v.Value)
		}
		if err != nil {
			t.Errorf("read op state %s: %v", r.Key, err)
		}
		mu.Lock()
		log = append(log, fenceTurn{op: r.Key, state: s})
		mu.Unlock()
	}
	h.onFrame = func(r FrameRecord) {
		if r.Outcome == FrameEnqueued {
			return
		}
		mu.Lock()
		log = append(log, fenceTurn{op: r.OperationID, resp: r.ResponseEntryID, frame: true})
		mu.Unlock()
	}
	return func() []fenceTurn {
		mu.Lock()
		defer mu.Unlock()
		return append([]fenceTurn(nil), log...)
	}
}

// framedResponses counts the distinct responses of op that had a frame turn.
func framedResponses(log []fenceTurn, op string) int {
	seen := map[string]bool{}
	for _, t := range log {
		if t.frame && t.op == op {
			seen[t.resp] = true
		}
	}
	return len(seen)
}

// The checker flags a frame turn on another response's effect_pending, and
// only that (a frame behind a non-effect_pending leaf is the state half's).
func TestCrossResponseTurnsFlagsOnlyTheResponseHalf(t *testing.T) {
	a := &OpState{At: LeafAssistantEffectPending, ResponseEntryID: "A"}
	b := &OpState{At: LeafDeferredEffectPending, ResponseEntryID: "B"}
	retry := &OpState{At: LeafAssistantRetryWait}
	ok := []fenceTurn{{op: "o", state: a}, {op: "o", resp: "A", frame: true}, {op: "o", state: retry},
		{op: "o", resp: "A", frame: true}, {op: "o", state: nil}, {op: "o", resp: "A", frame: true}}
	require.Empty(t, crossResponseTurns(ok))
	bad := []fenceTurn{{op: "o", state: a}, {op: "o", resp: "A", frame: true}, {op: "o", state: b},
		{op: "o", resp: "A", frame: true}}
	require.Equal(t, []string{"turn 3: frame of o:A while deferred.effect_pending on B"}, crossResponseTurns(bad))
}

// runtime/drive/generation.ts runGeneration: a retry's new attempt mints a
// new responseEntryId; every frame of the failed attempt had its turn first.
func TestRetryNeverQueuesAFrameBehindTheNextAttempt(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		h := newHarness(t, b)
		turns := recordFenceTurns(t, h)
		a := newAcc()
		h.provider.add(seq(a.start(), a.textStart(0), a.textDelta(0, "x"), a.textDelta(0, "y"),
			a.fail(pi.StopError, "overloaded")), helloScript())
		l := h.open()
		op := h.start(3)
		r, err := l.Drive(StepOptions{WaitForRetry: true})
		require.NoError(t, err)
		require.Equal(t, StepSettled, r.Kind)
		log := turns()
		require.Equal(t, 2, framedResponses(log, op), "both attempts reached the line")
		require.Empty(t, crossResponseTurns(log))
	})
}

// runtime/drive/deferred.ts: a poll interrupted after some frames is
// replaced, in the next process, by a fresh intent with a new
// responseEntryId (effect_pending → effect_pending); the old process's
// frames all had their turn on its own line before it closed.
func TestDeferredReplacementNeverMeetsAStaleFrame(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		h := newHarness(t, b)
		turns := recordFenceTurns(t, h)
		op := suspend(t, h)
		h.gated.mu.Lock()
		h.gated.failAt = h.gated.commits + 1 + 3 + 1 // intent + 3 frames durable, then the disk fails
		h.gated.mu.Unlock()
		h.provider.add(pollScript())
		_, err := h.lane.Step(StepOptions{DeferredPermit: true})
		require.Error(t, err)
		require.NoError(t, ignoreClosed(h.lane.Close()))
		h.gated.mu.Lock()
		h.gated.failAt = 0
		h.gated.mu.Unlock()
		l := h.open()
		require.Equal(t, LeafDeferredEffectPending, h.stateOf(op).At)
		h.provider.add(pollScript())
		_, err = l.Step(StepOptions{DeferredPermit: true})
		require.NoError(t, err)
		log := turns()
		require.Equal(t, 3, framedResponses(log, op), "the suspending response, the abandoned poll and its replacement reached the line")
		require.Empty(t, crossResponseTurns(log))
	})
}

// ignoreClosed accepts the seal error a faulted lane's Close reports.
func ignoreClosed(err error) error {
	var hf *HarnessFault
	if errors.As(err, &hf) {
		return nil
	}
	return err
}

// waitSpy is an executor whose futures named "drive:…" report each Wait on
// them before blocking: it tells a test that a second driver is waiting on
// the active drive's claim.
type waitSpy struct {
	env.Goroutines
	waiting chan string
}

type spiedFuture struct {
	env.Completer
	name    string
	waiting chan string
}

func (s waitSpy) NewFuture(name string) env.Completer {
	f := s.Goroutines.NewFuture(name)
	if !strings.HasPrefix(name, "drive:") {
		return f
	}
	return spiedFuture{Completer: f, name: name, waiting: s.waiting}
}

func (f spiedFuture) Wait() error {
	f.waiting <- f.name
	return f.Completer.Wait()
}

// runtime/lane.ts Lane.drive: a drive claim finding Lane.activeDrive on the
// same operation observes it ("observe": await its completion, return its
// outcome) and never runs a procedure beside it. A second driver that steps
// while the first streams response A therefore neither recovers A as an
// orphan nor publishes an attempt B: the response-id half of the fence is
// never the one that decides (the proof at progress.owns).
func TestSecondDriverObservesTheActiveDrive(t *testing.T) {
	h := newHarness(t, backends[0])
	spy := waitSpy{waiting: make(chan string, 4)}
	h.exec = spy
	turns := recordFenceTurns(t, h)
	l := h.open()
	op := h.start(3)
	type returned struct {
		r   StepResult
		err error
	}
	second := make(chan returned, 1)
	a, b := newAcc(), newAcc()
	first := seq(a.start(), a.textStart(0), a.textDelta(0, "x"), a.textDelta(0, "y"), a.textEnd(0, "xy"), a.done(pi.StopStop))
	first.before = func(i int) {
		if i != 3 {
			return
		}
		require.NoError(t, l.line.Drain()) // A's first frames had their turn
		go func() {
			r, err := l.Drive(StepOptions{WaitForRetry: true})
			second <- returned{r, err}
		}()
		select {
		case name := <-spy.waiting:
			require.Equal(t, "drive:"+op, name, "the second driver waits on the active drive")
		case got := <-second:
			t.Errorf("the second driver ran beside the first and returned %+v", got)
			second <- got
		}
	}
	h.provider.add(first, seq(b.start(), b.textStart(0), b.textDelta(0, "z"), b.textEnd(0, "z"), b.done(pi.StopStop)))
	r, err := l.Step(StepOptions{})
	require.NoError(t, err)
	got := <-second
	require.NoError(t, got.err)
	require.Equal(t, StepResult{Kind: StepProgress}, r, "A settles into the checkpoint")
	require.Equal(t, r, got.r, "the second driver returns the active drive's result")
	require.Len(t, h.provider.requests, 1, "no second attempt was streamed")
	require.NoError(t, l.line.Drain())
	require.Empty(t, crossResponseTurns(turns()))
	require.Equal(t, 1, framedResponses(turns(), op))
	require.Equal(t, LeafCheckpoint, h.stateOf(op).At)
}

// runtime/lane.ts Lane.drive: the claim is released when the drive ends, so
// a later driver claims afresh and drives on (here: the checkpoint settles).
func TestDriveClaimIsReleasedWhenTheDriveEnds(t *testing.T) {
	h := newHarness(t, backends[0])
	l := h.open()
	op := h.start(3)
	h.provider.add(helloScript())
	r, err := l.Step(StepOptions{})
	require.NoError(t, err)
	require.Equal(t, StepResult{Kind: StepProgress}, r)
	r, err = l.Drive(StepOptions{})
	require.NoError(t, err)
	require.Equal(t, StepResult{Kind: StepSettled, Status: "completed"}, r)
	require.Nil(t, h.stateOf(op))
}

// runtime/progress.ts openFrameProgress: the fence reads the current
// operation's leaf and responseEntryId, never its id (a response id names
// one operation's intent, so the id adds nothing; see progress.owns).
func TestFenceComparesNoOperationID(t *testing.T) {
	p := (&Lane{}).openProgress("op-a", "resp-1")
	at := func(op string, leaf Leaf, resp string) view {
		return view{op: &Operation{ID: op, State: &OpState{At: leaf, ResponseEntryID: resp}}}
	}
	require.True(t, p.owns(at("op-a", LeafAssistantEffectPending, "resp-1")))
	require.True(t, p.owns(at("op-b", LeafDeferredEffectPending, "resp-1")), "pi's fence holds whatever the operation id")
	require.False(t, p.owns(at("op-a", LeafAssistantEffectPending, "resp-2")))
	require.False(t, p.owns(at("op-a", LeafAssistantRetryWait, "resp-1")))
	require.False(t, p.owns(view{}))
}
