package lane

import (
	"testing"

	"github.com/frameproof/frameproof/impl/frames"
	"github.com/frameproof/frameproof/impl/pi"
	"github.com/frameproof/frameproof/impl/store"
	"github.com/stretchr/testify/require"
)

// crashRun runs s with only the first keep commits durable (later commits
// fail and fault the process), then reopens a fresh lane process on the
// same storage. It returns the op id, the reserved response id and the
// frames that were enqueued in the crashed process.
func crashRun(t *testing.T, h *harness, maxAttempts int, s *script, keep int) (op, resp string, enq []FrameRecord) {
	l := h.open()
	op = h.start(maxAttempts)
	// keep counts the run's start-run commit; the boundary steps that
	// brought it to assistant.ready are durable too
	h.gated.mu.Lock()
	h.gated.failAt = h.gated.commits + keep
	h.gated.mu.Unlock()
	h.provider.add(s)
	_, _ = l.Drive(StepOptions{})
	if len(h.provider.requests) > 0 {
		resp = h.provider.requests[len(h.provider.requests)-1].ResponseEntryID
	}
	enq = h.enqueued()
	h.gated.failAt = 0
	h.resetEvents()
	h.open()
	return op, resp, enq
}

// Required: every ordinary response class deletes the frame list atomically.
func TestRequiredEveryResponseClassDeletesFrameList(t *testing.T) {
	handle := pi.DeferredHandle{Provider: "openai", ModelID: "gpt-test", API: "openai-responses", ID: "job-1"}
	classes := []struct {
		name   string
		script func() *script
		next   Leaf // "" = terminal failure
	}{
		{"stop", helloScript, LeafCheckpoint},
		{"toolUse", func() *script {
			a := newAcc()
			return seq(a.start(), a.toolStart(0, "c1", "read"), a.toolDelta(0, `{}`), a.toolEnd(0, `{}`), a.done(pi.StopToolUse))
		}, LeafTools},
		{"retryable error", func() *script {
			a := newAcc()
			return seq(a.start(), a.textStart(0), a.textDelta(0, "x"), a.fail(pi.StopError, "503 service unavailable"))
		}, LeafAssistantRetryWait},
		{"fatal error", func() *script {
			a := newAcc()
			return seq(a.start(), a.textStart(0), a.textDelta(0, "x"), a.fail(pi.StopError, "invalid api key"))
		}, ""},
		{"deferred", func() *script {
			a := newAcc()
			return seq(a.start(), a.textStart(0), a.textDelta(0, "queued"), a.deferred(handle))
		}, LeafDeferredSuspended},
		{"toolUse without calls", func() *script {
			a := newAcc()
			return seq(a.start(), a.textStart(0), a.textDelta(0, "x"), a.done(pi.StopToolUse))
		}, ""},
	}
	forEachBackend(t, func(t *testing.T, b backend) {
		for _, c := range classes {
			t.Run(c.name, func(t *testing.T) {
				h := newHarness(t, b)
				l := h.open()
				op := h.start(3)
				h.provider.add(c.script())
				_, err := l.Step(StepOptions{}) // intent + stream + settlement
				require.NoError(t, err)
				resp := h.provider.requests[0].ResponseEntryID
				require.Empty(t, h.frameList(op, resp))
				st := h.stateOf(op)
				if c.next == "" {
					require.Nil(t, st)
					require.Contains(t, h.resultOf(op), `"status":"failed"`)
				} else {
					require.Equal(t, c.next, st.At)
				}
				// The delete is in the settlement transaction: same commit as the entry.
				var entrySeq, delSeq int64
				for _, r := range h.tele {
					if r.Kind == "entry" && r.Seq > entrySeq {
						entrySeq = r.Seq
					}
					if r.Kind == "list" && r.Op == "delete" && r.Key == op+":"+resp {
						delSeq = r.Seq
					}
				}
				require.NotZero(t, delSeq)
				if c.next != "" {
					require.Equal(t, entrySeq+3, delSeq, "entry, usage, tip, deleteList")
				} else {
					require.Greater(t, delSeq, entrySeq+2)
				}
			})
		}
	})
}

// The settlement write order is pi's: entry, usage, tip, list delete, state.
func TestSettlementWriteOrder(t *testing.T) {
	h := newHarness(t, backends[0])
	l := h.open()
	op := h.start(1)
	h.provider.add(helloScript())
	_, err := l.Step(StepOptions{})
	require.NoError(t, err)
	var got []string
	for _, r := range h.tele[len(h.tele)-5:] { // the settlement is the last commit of the step
		got = append(got, r.Kind+":"+r.Op+":"+r.Namespace)
	}
	require.Equal(t, []string{"entry::", "usage::", "value:set:pi.branch.tip", "list:delete:pi.pending.assistant_frame", "value:set:pi.op.state"}, got)
	require.Equal(t, LeafCheckpoint, h.stateOf(op).At)
}

// Required: crash at every frame/settlement boundary.
func TestRequiredCrashAtEveryFrameSettlementBoundary(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		// commits: 1 run, 2 intent, 3..13 frames, 14 settlement.
		for keep := 1; keep <= 14; keep++ {
			h := newHarness(t, b)
			op, resp, enq := crashRun(t, h, 3, interleavedScript(), keep)
			l := h.lane
			switch {
			case keep == 1:
				require.Equal(t, LeafAssistantReady, h.stateOf(op).At, "keep=%d", keep)
			case keep == 14:
				require.Equal(t, LeafTools, h.stateOf(op).At, "keep=%d", keep)
				require.Empty(t, h.frameList(op, resp))
			default:
				nFrames := keep - 2
				els := h.frameList(op, resp)
				require.Len(t, els, nFrames, "keep=%d: only the committed prefix restores", keep)
				require.Equal(t, LeafAssistantEffectPending, h.stateOf(op).At)
				var want *pi.AssistantMessage
				if nFrames > 0 {
					var err error
					want, err = frames.Reduce(parseFrames(t, enq[:nFrames]))
					require.NoError(t, err)
				}
				_, err := l.Step(StepOptions{})
				require.NoError(t, err)
				got := h.entryMessage(resp)
				require.Equal(t, pi.StopError, got.StopReason)
				require.Equal(t, InterruptedWarning, *got.ErrorMessage)
				if want == nil {
					require.Equal(t, "unknown", got.API)
					require.Empty(t, got.Content)
				} else {
					require.Len(t, got.Content, len(want.Content))
					require.Equal(t, textOf(want), textOf(got))
				}
				require.Empty(t, h.frameList(op, resp))
				require.Equal(t, LeafAssistantRetryWait, h.stateOf(op).At)
			}
		}
	})
}

// Required: no frames and partial text/thinking/tool-call frames.
func TestRequiredRecoveryNoFramesAndPartialFrames(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		a := newAcc()
		s := seq(a.start(), a.textStart(0), a.textDelta(0, "par"), a.thinkStart(1), a.thinkDelta(1, "th"),
			a.toolStart(2, "c1", "read"), a.toolDelta(2, `{"path":"x`), a.done(pi.StopStop))
		cases := []struct {
			keep  int
			check func(t *testing.T, m *pi.AssistantMessage)
		}{
			{2, func(t *testing.T, m *pi.AssistantMessage) {
				require.Equal(t, "unknown", m.API)
				require.Equal(t, "openai", m.Provider)
				require.Equal(t, "gpt-test", m.Model)
				require.Empty(t, m.Content)
			}},
			{5, func(t *testing.T, m *pi.AssistantMessage) {
				require.Equal(t, "openai-responses", m.API, "identity from the start frame")
				require.Equal(t, "par", textOf(m))
			}},
			{7, func(t *testing.T, m *pi.AssistantMessage) {
				require.Equal(t, "th", m.Content[1].(pi.ThinkingContent).Thinking)
			}},
			{9, func(t *testing.T, m *pi.AssistantMessage) {
				tc := m.Content[2].(pi.ToolCall)
				require.Equal(t, "c1", tc.ID)
				require.Equal(t, `{"path":"x"}`, tc.Arguments.String(), "partial JSON parsed by the reducer")
			}},
		}
		for _, c := range cases {
			h := newHarness(t, b)
			op, resp, _ := crashRun(t, h, 3, s, c.keep)
			_, err := h.lane.Step(StepOptions{})
			require.NoError(t, err)
			m := h.entryMessage(resp)
			require.Equal(t, pi.StopError, m.StopReason)
			c.check(t, m)
			require.Empty(t, h.frameList(op, resp))
			a = newAcc()
			s = seq(a.start(), a.textStart(0), a.textDelta(0, "par"), a.thinkStart(1), a.thinkDelta(1, "th"),
				a.toolStart(2, "c1", "read"), a.toolDelta(2, `{"path":"x`), a.done(pi.StopStop))
		}
	})
}

// Required: authoritative end-frame content survives.
func TestRequiredAuthoritativeEndFrameContentSurvives(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		h := newHarness(t, b)
		a := newAcc()
		s := seq(a.start(), a.textStart(0), a.textDelta(0, "draft"), a.textEnd(0, "corrected"), a.done(pi.StopStop))
		op, resp, _ := crashRun(t, h, 3, s, 6) // all 4 frames, settlement lost
		require.Len(t, h.frameList(op, resp), 4)
		_, err := h.lane.Step(StepOptions{})
		require.NoError(t, err)
		require.Equal(t, "corrected", textOf(h.entryMessage(resp)))
	})
}

// Required: interrupted generation commits partial synthetic error then
// retries or fails at cap.
func TestRequiredInterruptedGenerationRetriesThenFailsAtCap(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		h := newHarness(t, b)
		op, resp1, _ := crashRun(t, h, 2, helloScript(), 4)
		_, err := h.lane.Step(StepOptions{})
		require.NoError(t, err)
		st := h.stateOf(op)
		require.Equal(t, LeafAssistantRetryWait, st.At)
		require.Equal(t, 2, st.NextAttempt)
		require.Equal(t, "", textOf(h.entryMessage(resp1)), "start + text_start committed: empty text block")
		require.Len(t, h.entryMessage(resp1).Content, 1)
		// retry → ready → attempt 2 crashes after its intent
		_, err = h.lane.Step(StepOptions{WaitForRetry: true})
		require.NoError(t, err)
		require.Equal(t, LeafAssistantReady, h.stateOf(op).At)
		h.gated.mu.Lock()
		h.gated.failAt = h.gated.commits + 2 // intent durable, first frame fails
		h.gated.mu.Unlock()
		h.provider.add(helloScript())
		_, err = h.lane.Step(StepOptions{})
		require.Error(t, err)
		resp2 := h.provider.requests[1].ResponseEntryID
		require.NotEqual(t, resp1, resp2)
		h.gated.failAt = 0
		l := h.open()
		require.Equal(t, 2, h.stateOf(op).Attempt)
		r, err := l.Step(StepOptions{})
		require.NoError(t, err)
		require.Equal(t, StepSettled, r.Kind)
		require.Equal(t, "failed", r.Status)
		require.Contains(t, h.resultOf(op), `"tipId":"`+resp2+`"`)
		require.Equal(t, InterruptedWarning, *h.entryMessage(resp2).ErrorMessage)
		require.Empty(t, h.frameList(op, resp2))
	})
}

// Required: interrupted partial tool calls never execute.
func TestRequiredInterruptedPartialToolCallsNeverExecute(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		for _, maxAttempts := range []int{1, 3} {
			h := newHarness(t, b)
			a := newAcc()
			// A complete-looking tool call: toolcall_end committed, settlement lost.
			s := seq(a.start(), a.toolStart(0, "c1", "rm"), a.toolDelta(0, `{"path":"/"}`), a.toolEnd(0, `{"path":"/"}`), a.done(pi.StopToolUse))
			op, resp, _ := crashRun(t, h, maxAttempts, s, 6)
			_, err := h.lane.Step(StepOptions{})
			require.NoError(t, err)
			m := h.entryMessage(resp)
			require.Equal(t, pi.StopError, m.StopReason)
			require.IsType(t, pi.ToolCall{}, m.Content[0])
			st := h.stateOf(op)
			if st != nil {
				require.NotEqual(t, LeafTools, st.At)
			} else {
				require.Contains(t, h.resultOf(op), `"failed"`)
			}
		}
	})
}

// Required: recovery uses zero usage and existing reserved IDs.
func TestRequiredRecoveryUsesZeroUsageAndReservedIDs(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		h := newHarness(t, b)
		op, _, _ := crashRun(t, h, 3, helloScript(), 5)
		st := h.stateOf(op)
		_, err := h.lane.Step(StepOptions{})
		require.NoError(t, err)
		m := h.entryMessage(st.ResponseEntryID)
		require.Equal(t, ZeroUsage(), m.Usage)
		require.Equal(t, `{"id":"`+st.UsageID+`","usage":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"entryId":"`+st.ResponseEntryID+`","adjustment":false}`, h.usageOf(st.UsageID))
		es, _ := h.store.Entries()
		require.Len(t, es, 2, "user entry + the synthetic response only")
	})
}

// Required: cancellation preserves committed partial content in synthetic
// aborted response.
func TestRequiredCancellationPreservesPartialInSyntheticAborted(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		h := newHarness(t, b)
		a := newAcc()
		s := seq(a.start(), a.textStart(0), a.textDelta(0, "keep me"), a.textEnd(0, "keep me"), a.done(pi.StopStop))
		op, resp, _ := crashRun(t, h, 3, s, 6) // complete-looking frames
		require.NoError(t, h.lane.RequestCancel())
		_, err := h.lane.Step(StepOptions{})
		require.NoError(t, err)
		m := h.entryMessage(resp)
		require.Equal(t, pi.StopAborted, m.StopReason, "cancellation wins over complete-looking content")
		require.Equal(t, "keep me", textOf(m))
		require.Equal(t, InterruptedWarning, *m.ErrorMessage)
		require.Equal(t, ZeroUsage(), m.Usage)
		require.Equal(t, LeafCheckpoint, h.stateOf(op).At, "TX1")
		require.Empty(t, h.frameList(op, resp))
		r, err := h.lane.Step(StepOptions{})
		require.NoError(t, err)
		require.Equal(t, "aborted", r.Status, "TX2")
		require.Contains(t, h.resultOf(op), `"status":"aborted"`)
		require.Zero(t, len(h.provider.requests)-1, "no provider request after restore")
	})
}

// Required: after_response never runs for restored synthetic settlement.
func TestRequiredAfterResponseNeverRunsForRestoredSynthetic(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		for _, cancel := range []bool{false, true} {
			h := newHarness(t, b)
			crashRun(t, h, 3, helloScript(), 5)
			runsBefore := h.hookRuns
			if cancel {
				require.NoError(t, h.lane.RequestCancel())
				require.Equal(t, []string{"operation_abort"}, h.eventTypes())
				h.resetEvents()
			}
			_, err := h.lane.Step(StepOptions{})
			require.NoError(t, err)
			require.Equal(t, runsBefore, h.hookRuns)
			require.Equal(t, []string{"message_start(recovery)", "message_end(recovery)", "entry_added(recovery)", "usage"}, h.eventTypes())
		}
	})
}

// The recovery read is paged and budgeted: past the budget, the budgeted
// prefix is recovered and a diagnostic is added.
func TestRecoveryFrameBudget(t *testing.T) {
	h := newHarness(t, backends[0])
	h.budget = 1500
	a := newAcc()
	evs := []evFn{a.start(), a.textStart(0)}
	for i := 0; i < 2100; i++ {
		evs = append(evs, a.textDelta(0, "x"))
	}
	evs = append(evs, a.done(pi.StopStop))
	op, resp, _ := crashRun(t, h, 3, seq(evs...), 2+2102)
	require.Len(t, h.frameList(op, resp), 2102)
	_, err := h.lane.Step(StepOptions{})
	require.NoError(t, err)
	m := h.entryMessage(resp)
	require.Equal(t, 1498, len(textOf(m)), "start + text_start + 1498 deltas")
	require.Equal(t, pi.Array, m.Diagnostics.Kind())
	d := m.Diagnostics.Array()[0].ObjectValue()
	typ, _ := d.Get("type")
	require.Equal(t, DiagnosticFrameBudget, typ.Str())
	_ = store.Asc
}
