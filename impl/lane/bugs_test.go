//go:build frameproofbugs

package lane

import (
	"fmt"
	"strings"
	"testing"

	"github.com/frameproof/frameproof/impl/env"
	"github.com/frameproof/frameproof/impl/pi"
	"github.com/frameproof/frameproof/impl/store"
	"github.com/stretchr/testify/require"
)

// bugChecks maps every injectable bug to a scenario + check that returns a
// violation ("" = the check passes). Each runs with the bug off (must pass)
// and on (must be caught).
var bugChecks = map[string]func(t *testing.T, h *harness) string{
	"settle-without-delete": func(t *testing.T, h *harness) string {
		l := h.open()
		op := h.start(1)
		h.provider.add(helloScript())
		_, _ = l.Drive(StepOptions{})
		if n := len(h.frameList(op, h.provider.requests[0].ResponseEntryID)); n != 0 {
			return fmt.Sprintf("%d frames survive settlement", n)
		}
		return ""
	},
	"fence-ignores-response": raceCheck,
	"fence-at-enqueue":       raceCheck,
	"skip-drain": func(t *testing.T, h *harness) string {
		gate := env.Goroutines{}.NewFuture("gate")
		// The gate opens when someone waits on a frame write (a drain) or
		// when after_response runs, whichever comes first.
		h.exec = &waitHookExec{onWait: func(name string) {
			if name == "line:frame" {
				gate.Resolve(nil)
			}
		}}
		l := h.open()
		h.start(1)
		h.gated.gate, h.gated.match = gate, isFrameAppend
		var committed, enqueued int
		h.hook = func(m *pi.AssistantMessage) (*pi.AssistantMessage, error) {
			committed, enqueued = h.outcomes(FrameCommitted), len(h.enqueued())
			gate.Resolve(nil)
			return m, nil
		}
		h.provider.add(helloScript())
		_, _ = l.Drive(StepOptions{})
		if committed != enqueued {
			return fmt.Sprintf("after_response ran with %d of %d frames committed", committed, enqueued)
		}
		return ""
	},
	"recovery-runs-after-response": func(t *testing.T, h *harness) string {
		crashRun(t, h, 3, helloScript(), 5)
		before := h.hookRuns
		_, _ = h.lane.Step(StepOptions{})
		if h.hookRuns != before {
			return "after_response ran for a synthetic recovery response"
		}
		return ""
	},
	"synthetic-nonzero-usage": func(t *testing.T, h *harness) string {
		_, resp, _ := crashRun(t, h, 3, helloScript(), 5)
		_, _ = h.lane.Step(StepOptions{})
		if u := h.entryMessage(resp).Usage; u != ZeroUsage() {
			return fmt.Sprintf("synthetic usage %+v", u)
		}
		return ""
	},
	"recovery-mints-new-ids": func(t *testing.T, h *harness) string {
		op, resp, _ := crashRun(t, h, 3, helloScript(), 5)
		_, _ = h.lane.Step(StepOptions{})
		es, _ := h.store.Entries()
		if es[len(es)-1].Entry.ID != resp {
			return "recovered entry not under the reserved response id"
		}
		if len(h.frameList(op, resp)) != 0 {
			return "reserved frame list survived recovery"
		}
		return ""
	},
	"cancel-loses-to-complete": func(t *testing.T, h *harness) string {
		a := newAcc()
		s := seq(a.start(), a.textStart(0), a.textDelta(0, "x"), a.textEnd(0, "x"), a.done(pi.StopStop))
		_, resp, _ := crashRun(t, h, 3, s, 6)
		_ = h.lane.RequestCancel()
		_, _ = h.lane.Step(StepOptions{})
		if sr := h.entryMessage(resp).StopReason; sr != pi.StopAborted {
			return "cancelled response settled as " + string(sr)
		}
		return ""
	},
	"snapshot-shows-dead-live-partial": func(t *testing.T, h *harness) string {
		l := h.open()
		h.start(1)
		h.gated.failAt = h.gated.commits + 3
		h.provider.add(helloScript())
		_, _ = l.Drive(StepOptions{})
		snap, err := l.Snapshot()
		require.NoError(t, err)
		if snap.Live {
			return "snapshot shows the live partial of a stream the faulted process no longer owns"
		}
		return ""
	},
	"frame-after-terminal": func(t *testing.T, h *harness) string {
		l := h.open()
		h.start(1)
		h.provider.add(helloScript())
		_, _ = l.Drive(StepOptions{})
		for _, r := range h.enqueued() {
			if r.EventType == pi.EventDone || r.EventType == pi.EventError {
				return "a frame was appended for a terminal event"
			}
		}
		return ""
	},
	"emit-entry-before-commit": func(t *testing.T, h *harness) string {
		cfg := h.config()
		missing := false
		cfg.Listener = func(ev Event) env.Future {
			if ev.Type == EvEntryAdded {
				es, _ := h.store.Entries()
				found := false
				for _, e := range es {
					found = found || e.Entry.ID == ev.EntryID
				}
				missing = missing || !found
			}
			return nil
		}
		l, err := Open(cfg)
		require.NoError(t, err)
		h.lane = l
		h.start(1)
		h.provider.add(helloScript())
		_, _ = l.Drive(StepOptions{})
		if missing {
			return "entry_added before the entry committed"
		}
		return ""
	},
	"replacement-keeps-old-frames": func(t *testing.T, h *harness) string {
		op, old := crashPoll(t, h, 3)
		h.provider.add(pollScript())
		_, _ = h.lane.Step(StepOptions{DeferredPermit: true})
		if n := len(h.frameList(op, old)); n != 0 {
			return fmt.Sprintf("%d abandoned poll frames survive the replacement", n)
		}
		return ""
	},
	"frames-first-page-only": func(t *testing.T, h *harness) string {
		var ws []store.Write
		for i := 0; i < 5; i++ {
			ws = append(ws, store.AppendListRaw(FramesAddr("op", "resp"), []byte(`{"type":"text_delta","contentIndex":0,"delta":"x"}`)))
		}
		_, err := h.store.Commit(ws)
		require.NoError(t, err)
		fs, _, err := (&Lane{cfg: Config{Storage: h.store, FramePageSize: 2, bugs: h.bugs}}).readFrames("op", "resp")
		require.NoError(t, err)
		if len(fs) != 5 {
			return fmt.Sprintf("read %d of 5 frames in pages of 2", len(fs))
		}
		return ""
	},
	"thinking-end-keeps-start-redacted": func(t *testing.T, h *harness) string {
		l := h.open()
		h.start(1)
		a := newAcc()
		// api/bedrock-converse-stream.js: encrypted reasoning turns a
		// plain thinking block redacted mid-block
		redact := func() pi.Event {
			b := a.m.Content[0].(pi.ThinkingContent)
			b.Redacted, b.Thinking = pi.BoolPtr(true), "[Reasoning redacted]"
			a.m.Content[0] = b
			return pi.Event{Type: pi.EventThinkingDelta, ContentIndex: pi.Index(0), Delta: b.Thinking, Partial: a.m}
		}
		end := func() pi.Event {
			return pi.Event{Type: pi.EventThinkingEnd, ContentIndex: pi.Index(0), Content: "[Reasoning redacted]", Partial: a.m}
		}
		h.provider.add(seq(a.start(), a.thinkStart(0), redact, end, a.done(pi.StopStop)))
		_, _ = l.Drive(StepOptions{})
		for _, r := range h.enqueued() {
			if r.EventType == pi.EventThinkingEnd && !strings.Contains(string(r.Frame), `"redacted":true`) {
				return "thinking_end frame " + string(r.Frame) + " lost the end's redacted"
			}
		}
		return ""
	},
	"resume-reopens-staged": func(t *testing.T, h *harness) string {
		h.tools = []Tool{{Name: "read", Run: func(pi.JSONValue) ToolOutput {
			return ToolOutput{Content: []pi.Content{pi.TextContent{Text: "ran"}}}
		}}}
		h.open()
		op, _ := h.toTools(toolRun("read"), toolScript(pi.StopToolUse, "read", "read"))
		// the parallel batch as a crash leaves it when call 2 ended first:
		// call 1 effect_pending, call 2 staged (as
		// TestToolBatchFinalizeCleansStagedResults builds it), so the
		// resumed step's materialization places nothing before the loop
		st := h.lane.Current().State
		st.Calls[0].Status, st.Calls[0].Replay = CallEffectPending, "never"
		st.Calls[1].Status = CallOutcomeReady
		staged := []byte(`{"type":"message","payload":{"role":"toolResult","toolCallId":"call_1","toolName":"read","content":[{"type":"text","text":"staged"}],"isError":false,"timestamp":1}}`)
		_, err := h.store.Commit([]store.Write{store.SetValueRaw(PendingEntryAddr(st.Calls[1].ResultEntryID), staged),
			store.SetValueRaw(ToolArgsAddr(op, st.BatchTurnID, st.Calls[0].SourceIndex), []byte(`{}`)),
			store.SetValueRaw(OpStateAddr(op), MarshalState(st))})
		require.NoError(t, err)
		h.open()
		if _, err := h.lane.Step(StepOptions{}); err != nil {
			return "resuming the batch failed: " + err.Error()
		}
		es, err := h.store.Entries()
		require.NoError(t, err)
		for _, e := range es {
			if e.Entry.ID == st.Calls[1].ResultEntryID && !strings.Contains(string(e.Entry.Raw), `"text":"staged"`) {
				return "the staged result was replaced: " + string(e.Entry.Raw)
			}
			if e.Entry.ID == st.Calls[1].ResultEntryID {
				return "" // placed as staged
			}
		}
		return "the staged result was never placed"
	},
}

// raceCheck: finalization queued between appends; afterwards no frame list
// may exist for the finalized operation.
func raceCheck(t *testing.T, h *harness) string {
	l := h.open()
	op := h.start(1)
	gate := env.Goroutines{}.NewFuture("gate")
	h.gated.gate, h.gated.match = gate, isFrameAppend
	s := helloScript()
	var fin env.Future
	s.before = func(i int) {
		if i == 2 {
			fin = l.FinalizeAsync("aborted", nil)
		}
		if i == 4 {
			gate.Resolve(nil)
		}
	}
	h.provider.add(s)
	_, _ = l.Drive(StepOptions{})
	_ = fin.Wait()
	if n := len(h.frameList(op, h.provider.requests[0].ResponseEntryID)); n != 0 {
		return fmt.Sprintf("stale appends recreated %d frames after finalization", n)
	}
	return ""
}

func TestBugsAreCaught(t *testing.T) {
	require.Len(t, bugChecks, len(BugNames()), "every bug needs a check")
	for _, name := range BugNames() {
		check, ok := bugChecks[name]
		require.True(t, ok, "no check for %s", name)
		t.Run(name, func(t *testing.T) {
			h := newHarness(t, backends[0])
			require.Empty(t, check(t, h), "correct lane must pass")
			h = newHarness(t, backends[0])
			require.NoError(t, h.bugs.set(name))
			require.NotEmpty(t, check(t, h), "bug %s not caught", name)
		})
	}
}

func TestBugNamesRoundTrip(t *testing.T) {
	for _, n := range BugNames() {
		cfg, err := WithBugs(Config{}, n)
		require.NoError(t, err)
		require.Equal(t, []string{n}, cfg.bugs.enabled())
	}
	_, err := WithBugs(Config{}, "no-such-bug")
	require.Error(t, err)
	require.Empty(t, bugs{}.enabled())
}

// waitHookExec is env.Goroutines whose futures call onWait(name) before
// blocking, so a test can react to exactly who waits on what.
type waitHookExec struct {
	env.Goroutines
	onWait func(name string)
}

func (e *waitHookExec) NewFuture(name string) env.Completer {
	return &hookFuture{Completer: e.Goroutines.NewFuture(name), name: name, onWait: e.onWait}
}

type hookFuture struct {
	env.Completer
	name   string
	onWait func(string)
}

func (f *hookFuture) Wait() error {
	if !f.Done() {
		f.onWait(f.name)
	}
	return f.Completer.Wait()
}
