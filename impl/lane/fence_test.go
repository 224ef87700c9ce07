package lane

import (
	"errors"
	"fmt"
	"sync"
	"testing"

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

// The proof at progress.owns rests on one driver per lane (pi's
// Lane.activeDrive). This Lane does not enforce it: a second driver
// stepping while the first streams response A recovers A as an orphan and
// publishes attempt B, and A's remaining frames then reach the line while
// the operation is effect_pending on B: only the response-id half of the
// fence declines them.
func TestSecondDriverReachesTheResponseHalfOfTheFence(t *testing.T) {
	h := newHarness(t, backends[0])
	turns := recordFenceTurns(t, h)
	l := h.open()
	op := h.start(3)
	second := make(chan error, 1)
	bStreaming, release := make(chan struct{}), make(chan struct{})
	a, b := newAcc(), newAcc()
	first := seq(a.start(), a.textStart(0), a.textDelta(0, "x"), a.textDelta(0, "y"), a.textEnd(0, "xy"), a.done(pi.StopStop))
	first.before = func(i int) {
		if i != 3 {
			return
		}
		require.NoError(t, l.line.Drain()) // A's first frames had their turn
		go func() {
			_, err := l.Drive(StepOptions{WaitForRetry: true})
			second <- err
		}()
		<-bStreaming // B is effect_pending and streaming
	}
	replacement := seq(b.start(), b.textStart(0), b.textDelta(0, "z"), b.textEnd(0, "z"), b.done(pi.StopStop))
	replacement.before = func(i int) {
		if i == 1 {
			close(bStreaming)
			<-release
		}
	}
	h.provider.add(first, replacement)
	r, err := l.Step(StepOptions{})
	close(release)
	require.NoError(t, <-second)
	require.NoError(t, err)
	require.Equal(t, StepResult{Kind: StepProgress, Reason: "stale"}, r, "A's settlement finds B's intent")
	resA := h.provider.requests[0].ResponseEntryID
	require.NoError(t, l.line.Drain())
	require.NotEmpty(t, crossResponseTurns(turns()))
	require.Empty(t, h.frameList(op, resA), "A's late frames were declined, no list recreated")
}
