package lane

import (
	"testing"

	"github.com/frameproof/frameproof/impl/env"
	"github.com/frameproof/frameproof/impl/pi"
	"github.com/frameproof/frameproof/impl/store"
	"github.com/stretchr/testify/require"
)

var testHandle = pi.DeferredHandle{Provider: "openai", ModelID: "gpt-test", API: "openai-responses", ID: "job-1"}

// suspend runs a generation that returns a valid deferred handle.
func suspend(t *testing.T, h *harness) string {
	l := h.open()
	op := h.start(3)
	a := newAcc()
	h.provider.add(seq(a.start(), a.deferred(testHandle)))
	_, err := l.Step(StepOptions{})
	require.NoError(t, err)
	require.Equal(t, LeafDeferredSuspended, h.stateOf(op).At)
	return op
}

func pollScript() *script {
	a := newAcc()
	return seq(a.start(), a.textStart(0), a.textDelta(0, "polled "), a.textDelta(0, "answer"), a.textEnd(0, "polled answer"), a.done(pi.StopStop))
}

// Required: deferred poll frame persistence and normal cleanup.
func TestRequiredDeferredPollFramePersistenceAndCleanup(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		h := newHarness(t, b)
		op := suspend(t, h)
		s := pollScript()
		var midList int
		s.before = func(i int) {
			if i == len(s.events)-1 {
				req := h.provider.requests[1]
				require.NoError(t, h.lane.line.Drain())
				midList = len(h.frameList(op, req.ResponseEntryID))
			}
		}
		h.provider.add(s)
		r, err := h.lane.Step(StepOptions{DeferredPermit: true})
		require.NoError(t, err)
		require.Equal(t, StepProgress, r.Kind)
		req := h.provider.requests[1]
		require.NotNil(t, req.Deferred)
		require.Equal(t, 1, req.Poll)
		require.Equal(t, 5, midList, "poll frames persisted under the poll's response id")
		require.Empty(t, h.frameList(op, req.ResponseEntryID))
		require.Equal(t, "polled answer", textOf(h.entryMessage(req.ResponseEntryID)))
		require.Equal(t, LeafCheckpoint, h.stateOf(op).At)
	})
}

// crashPoll suspends, then crashes a poll after `frames` committed frames.
func crashPoll(t *testing.T, h *harness, frames int) (op, oldResp string) {
	op = suspend(t, h)
	h.gated.mu.Lock()
	h.gated.failAt = h.gated.commits + 1 + frames + 1 // intent + frames durable
	h.gated.mu.Unlock()
	h.provider.add(pollScript())
	_, err := h.lane.Step(StepOptions{DeferredPermit: true})
	require.Error(t, err)
	oldResp = h.provider.requests[1].ResponseEntryID
	h.gated.failAt = 0
	h.resetEvents()
	h.open()
	return op, oldResp
}

// Required: unknown poll snapshot without permit.
func TestRequiredUnknownPollSnapshotWithoutPermit(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		h := newHarness(t, b)
		op, old := crashPoll(t, h, 3)
		r, err := h.lane.Step(StepOptions{})
		require.NoError(t, err)
		require.Equal(t, StepResult{Kind: StepWaiting, Reason: "deferred"}, r)
		require.Equal(t, LeafDeferredEffectPending, h.stateOf(op).At)
		snap, err := h.lane.Snapshot()
		require.NoError(t, err)
		require.NotNil(t, snap.StreamingMessage)
		require.False(t, snap.Live)
		require.Equal(t, "polled ", textOf(snap.StreamingMessage))
		for _, e := range snap.Transcript {
			require.NotEqual(t, old, e.ID, "the partial is never in the transcript")
		}
		require.Len(t, h.frameList(op, old), 3)
	})
}

// Required: replacement intent deletes abandoned poll frames.
func TestRequiredReplacementIntentDeletesAbandonedPollFrames(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		h := newHarness(t, b)
		op, old := crashPoll(t, h, 3)
		s := pollScript()
		var oldAtStart, newMid int
		s.before = func(i int) {
			if i == 0 {
				oldAtStart = len(h.frameList(op, old))
			}
			if i == len(s.events)-1 {
				require.NoError(t, h.lane.line.Drain())
				newMid = len(h.frameList(op, h.provider.requests[2].ResponseEntryID))
			}
		}
		h.provider.add(s)
		_, err := h.lane.Step(StepOptions{DeferredPermit: true})
		require.NoError(t, err)
		req := h.provider.requests[2]
		require.NotEqual(t, old, req.ResponseEntryID, "fresh reserved ids")
		require.Equal(t, 1, req.Poll, "replacing an orphan keeps the poll number")
		require.Zero(t, oldAtStart, "the intent TX deleted the abandoned list")
		require.Equal(t, 5, newMid, "new response id gets a new list")
		// The old-list delete is in the intent transaction: right before the state set.
		for i, r := range h.tele {
			if r.Kind == "list" && r.Op == "delete" && r.Key == op+":"+old {
				require.Equal(t, "pi.op.state", h.tele[i+1].Namespace)
				require.Equal(t, r.Seq+1, h.tele[i+1].Seq)
			}
		}
		require.Empty(t, h.frameList(op, req.ResponseEntryID))
		// deferred.ts publishPollIntent: run_resume then turn_start, both recovery-tagged
		require.Equal(t, []string{"run_resume(recovery)", "turn_start(recovery)", "message_start(recovery)"}, h.eventTypes()[:3])
	})
}

// Required: live partial takes precedence over durable reduction.
func TestRequiredLivePartialTakesPrecedence(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		h := newHarness(t, b)
		l := h.open()
		h.start(1)
		gate := env.Goroutines{}.NewFuture("gate")
		h.gated.gate, h.gated.match = gate, isFrameAppend
		s := helloScript()
		var snap *Snapshot
		s.before = func(i int) {
			if i == 4 {
				var err error
				snap, err = l.Snapshot()
				require.NoError(t, err)
				gate.Resolve(nil)
			}
		}
		h.provider.add(s)
		_, err := l.Drive(StepOptions{})
		require.NoError(t, err)
		require.True(t, snap.Live)
		require.Equal(t, "hello world", textOf(snap.StreamingMessage), "live partial, ahead of zero committed frames")
		after, err := l.Snapshot()
		require.NoError(t, err)
		require.Nil(t, after.StreamingMessage)
	})
}

// Required: reopen exposes reduced streamingMessage on suspended
// effect-pending lane.
func TestRequiredReopenExposesReducedStreamingMessage(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		h := newHarness(t, b)
		op, resp, _ := crashRun(t, h, 3, helloScript(), 5)
		snap, err := h.lane.Snapshot()
		require.NoError(t, err)
		require.Equal(t, LeafAssistantEffectPending, snap.State.At)
		require.Equal(t, op, snap.OperationID)
		require.False(t, snap.Live)
		require.Equal(t, "hello ", textOf(snap.StreamingMessage))
		for _, e := range snap.Transcript {
			require.NotEqual(t, resp, e.ID)
		}
	})
}

// Required: no historical update event replay.
func TestRequiredNoHistoricalUpdateEventReplay(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		h := newHarness(t, b)
		crashRun(t, h, 3, helloScript(), 6)
		_, err := h.lane.Snapshot()
		require.NoError(t, err)
		require.Empty(t, h.eventTypes(), "open and snapshot emit nothing")
		_, err = h.lane.Step(StepOptions{})
		require.NoError(t, err)
		require.NotContains(t, h.eventTypes(), "message_update")
		require.NotContains(t, h.eventTypes(), "message_update(recovery)")
	})
}

// Required: recovery settlement clears partial on entry_added.
func TestRequiredRecoverySettlementClearsPartialOnEntryAdded(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		h := newHarness(t, b)
		_, resp, _ := crashRun(t, h, 3, helloScript(), 5)
		var atEnd, atAdded *Snapshot
		cfg := h.config()
		cfg.Listener = func(ev Event) env.Future {
			var err error
			switch ev.Type {
			case EvMessageEnd:
				atEnd, err = h.lane.Snapshot()
			case EvEntryAdded:
				atAdded, err = h.lane.Snapshot()
			}
			require.NoError(t, err)
			return nil
		}
		l, err := Open(cfg)
		require.NoError(t, err)
		h.lane = l
		_, err = l.Step(StepOptions{})
		require.NoError(t, err)
		require.NotNil(t, atEnd.StreamingMessage)
		require.NotEqual(t, resp, atEnd.Transcript[len(atEnd.Transcript)-1].ID)
		require.Nil(t, atAdded.StreamingMessage)
		require.Equal(t, resp, atAdded.Transcript[len(atAdded.Transcript)-1].ID)
	})
}

// Required: structural generation writes no assistant frame list.
func TestRequiredStructuralGenerationWritesNoFrameList(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		h := newHarness(t, b)
		l := h.open()
		h.provider.add(helloScript())
		before := h.store.NextSeq()
		m, err := l.GenerateStructural(Request{OperationID: "op", ResponseEntryID: "r", Model: ModelRef{Provider: "openai", ModelID: "gpt-test"}})
		require.NoError(t, err)
		require.Equal(t, "hello world", textOf(m))
		require.Equal(t, before, h.store.NextSeq(), "no write at all")
		require.Empty(t, h.frames)
		require.Empty(t, h.events)
		els, err := h.store.ReadList(FramesAddr("op", "r"), store.ReadOptions{})
		require.NoError(t, err)
		require.Empty(t, els)
	})
}
