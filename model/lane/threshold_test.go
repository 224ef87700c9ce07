package lane

import (
	"strings"
	"testing"

	"github.com/frameproof/frameproof/impl/pi"
)

var (
	thresholdModel = ModelRef{"openai", "gpt"}
	piCompaction   = Compaction{Enabled: true, ReserveTokens: 16384, KeepRecentTokens: 20000}
)

// thresholdRun is a model whose registry gives the run's model window and
// whose run "op" (prompt "hi", one estimated token) reached its
// need_assistant checkpoint step, dispatched.
func thresholdRun(t *testing.T, window float64, c *Compaction) (*Model, Expect) {
	t.Helper()
	return thresholdRunWith(t, map[ModelRef]float64{thresholdModel: window}, c)
}

// thresholdRunWith is thresholdRun with the registry windows.
func thresholdRunWith(t *testing.T, windows map[ModelRef]float64, c *Compaction) (*Model, Expect) {
	t.Helper()
	m := New(Config{Lane: "main", Now: func() float64 { return 1000 }, NewObserver: func() Observer { return &partialObserver{} },
		ContextWindows: windows})
	must(t, startRunOn(m, "op", "u1", Run{UserText: "hi", Model: thresholdModel, MaxAttempts: 1, Compaction: c}))
	_, err := m.Step(false)
	must(t, err)
	_, err = m.StepDone(true)
	must(t, err)
	e, err := m.Step(false)
	must(t, err)
	return m, e
}

// turns feeds the checkpoint step's n turns on the line, none skipped.
func turns(t *testing.T, m *Model, n int) {
	t.Helper()
	for i := 0; i < n; i++ {
		skipped, err := m.StepTurn()
		must(t, err)
		if skipped {
			t.Fatalf("turn %d skipped", i+1)
		}
	}
}

// runtime/drive/checkpoint.ts runCheckpoint with structural.ts
// prepareCompactionThreshold: a boundary over the window less reserveTokens
// (1 token > 16384-16384) reads the branch first (two turns), then commits
// the preparation under the minted task, the op state at summary.deciding
// with a threshold task resuming the checkpoint, and the lane state, and
// emits compaction_start; the run then waits for the summary.
func TestModelThresholdBoundaryCompacts(t *testing.T) {
	m, e := thresholdRun(t, 16384, &piCompaction)
	if e.Kind != "checkpoint" {
		t.Fatalf("step: %+v", e)
	}
	turns(t, m, 2)
	if err := m.Checkpoint("s1"); err == nil {
		t.Fatal("a compacting boundary accepted a minted assistant step")
	}
	m.BoundaryTask("t1")
	must(t, m.Checkpoint(""))
	ws, _ := m.TakeTX()
	if len(ws) != 3 || ws[0].Namespace != nsPrep || ws[0].Key != "op:t1" || !strings.Contains(ws[0].Value, `"tokensBefore":1,`) ||
		ws[1].Namespace != nsOpState || ws[2].Namespace != nsLaneState {
		t.Fatalf("TX: %v", ws)
	}
	want := `"at":"summary.deciding","task":{"taskId":"t1","reason":"threshold","boundary":{"kind":"resume_checkpoint",` +
		`"resumeAfter":{"continuation":{"kind":"need_assistant","overflowRecoveryUsed":false},"triggerEntryId":"u1"}}}}`
	if !strings.HasSuffix(ws[1].Value, want) {
		t.Fatalf("op state %s, want the suffix %s", ws[1].Value, want)
	}
	out, err := m.StepDone(true)
	must(t, err)
	ev := m.Events()
	if out != (Outcome{Kind: "progress"}) || ev[len(ev)-1] != "compaction_start:threshold startedAt=1000" {
		t.Fatalf("outcome %+v, events %v", out, ev)
	}
	if e, _ := m.Step(false); e != (Expect{Kind: "wait", Reason: "summary"}) {
		t.Fatalf("step after the compaction: %+v", e)
	}
}

// compaction/compaction.ts shouldCompact: strictly over the limit, so a
// context of exactly contextWindow - reserveTokens mints the step.
func TestModelThresholdAtTheLimitMintsStep(t *testing.T) {
	m, _ := thresholdRun(t, 16385, &piCompaction)
	turns(t, m, 2)
	if err := m.Checkpoint(""); err == nil {
		t.Fatal("a boundary at the limit accepted a compaction")
	}
	must(t, m.Checkpoint("s1"))
	if at := m.Committed().Ops["op"].At; at != AtReady {
		t.Fatalf("op at %s", at)
	}
}

// runtime/drive/structural.ts prepareCompactionThreshold: settings with
// enabled false, or a model the registry does not know, ask nothing (the
// boundary has one turn) and mint the step whatever the window.
func TestModelThresholdSkipsDisabledOrUnknownModel(t *testing.T) {
	disabled := piCompaction
	disabled.Enabled = false
	for name, m := range map[string]*Model{
		"disabled": func() *Model { m, _ := thresholdRun(t, 1, &disabled); return m }(),
		"unknown model": func() *Model {
			m, _ := thresholdRunWith(t, map[ModelRef]float64{{"openai", "other"}: 1}, &piCompaction)
			return m
		}(),
	} {
		turns(t, m, 1)
		if _, err := m.StepTurn(); err == nil {
			t.Fatalf("%s: a second turn was accepted", name)
		}
		must(t, m.Checkpoint("s1"))
	}
}

// runtime/drive/structural.ts prepareCompactionThreshold: with a registry,
// a run with no settings.compaction throws reading `enabled`.
func TestModelThresholdWithoutCompactionSettingsFaults(t *testing.T) {
	_, e := thresholdRun(t, 16384, nil)
	if e != (Expect{Kind: "fault", Reason: "Cannot read properties of undefined (reading 'enabled')"}) {
		t.Fatalf("step: %+v", e)
	}
}

// runtime/drive/structural.ts prepareCompactionThreshold: a trigger not on
// the branch is pi's invariant error when no compaction guards it; a
// compaction at or after the trigger guards it, one before it does not.
func TestModelThresholdTriggerGuardAndMissingTrigger(t *testing.T) {
	m, _ := thresholdRun(t, 16384, &piCompaction)
	m.ops["op"].genTrigger = "gone"
	turns(t, m, 1)
	out, err := m.StepDone(true)
	must(t, err)
	if out != (Outcome{Kind: "fault", Reason: "Checkpoint trigger gone is missing from its Branch"}) {
		t.Fatalf("outcome: %+v", out)
	}
	path := []pathItem{{id: "u0"}, {id: "c1", compaction: true}, {id: "u2"}}
	for trigger, want := range map[string]string{"u0": "guarded", "c1": "guarded", "u2": "", "gone": "guarded"} {
		guarded, fault := triggerGuard(path, trigger)
		if got := map[bool]string{true: "guarded"}[guarded] + fault; got != want {
			t.Fatalf("trigger %s: %q, want %q", trigger, got, want)
		}
	}
	if _, fault := triggerGuard(path[:1], "gone"); fault != "Checkpoint trigger gone is missing from its Branch" {
		t.Fatalf("missing trigger without a compaction: %q", fault)
	}
}

// atMayFinish steps m's run (at assistant.ready) through a response r1 that
// settles at the may_finish checkpoint, then lets the registry give window.
// mayFinishRun is a threshold run (compaction on, a 1e9 window) whose
// checkpoint settled and whose next step reached the may_finish boundary,
// with window as the model's context window there (atMayFinish).
func mayFinishRun(t *testing.T, window float64) *Model {
	t.Helper()
	m, _ := thresholdRun(t, 1e9, &piCompaction)
	turns(t, m, 2)
	must(t, m.Checkpoint("s1"))
	_, err := m.StepDone(true)
	must(t, err)
	atMayFinish(t, m, window)
	return m
}

func atMayFinish(t *testing.T, m *Model, window float64) {
	t.Helper()
	e, err := m.Step(false)
	must(t, err)
	if e.Kind != "generate" {
		t.Fatalf("step: %+v", e)
	}
	must(t, m.Intent("op", "r1", "g1", 1))
	must(t, m.Admit())
	final := partial("hello")
	final.StopReason = pi.StopStop
	must(t, m.ProviderEvent(&pi.Event{Type: pi.EventStart, Partial: partial("")}))
	must(t, m.ProviderEvent(&pi.Event{Type: pi.EventDone, Reason: pi.StopStop, Message: final}))
	must(t, m.AfterResponse())
	must(t, m.Settle())
	_, err = m.StepDone(true)
	must(t, err)
	m.cfg.ContextWindows[thresholdModel] = window
}

// runtime/drive/checkpoint.ts runCheckpoint: a may_finish boundary past
// the threshold compacts instead of finishing; its task resumes the
// may_finish checkpoint of the settled response.
func TestModelThresholdMayFinishCompacts(t *testing.T) {
	m := mayFinishRun(t, 16384)
	e, err := m.Step(false)
	must(t, err)
	if e != (Expect{Kind: "terminate", Status: "completed"}) {
		t.Fatalf("step: %+v", e)
	}
	turns(t, m, 2)
	m.BoundaryTask("t1")
	out, err := m.StepDone(true)
	must(t, err)
	v := stateValue(t, m, nsOpState, "op")
	if out != (Outcome{Kind: "progress"}) || !strings.HasSuffix(v, `"resumeAfter":{"continuation":{"kind":"may_finish","includeFinalAssistant":true},"triggerEntryId":"r1"}}}}`) {
		t.Fatalf("outcome %+v, state %s", out, v)
	}
}

// runtime/drive/checkpoint.ts runCheckpoint: the threshold read of a
// may_finish boundary goes through continueOperation, so a cancel that
// arrives after dispatch ends the step at its first turn with plain
// progress (not stale: the operation is still current).
func TestModelThresholdReadSkipsAfterCancel(t *testing.T) {
	m := mayFinishRun(t, 16384)
	_, err := m.Step(false)
	must(t, err)
	m.Cancel()
	skipped, err := m.StepTurn()
	must(t, err)
	out, err := m.StepDone(true)
	must(t, err)
	if !skipped || out != (Outcome{Kind: "progress"}) {
		t.Fatalf("skipped %t, outcome %+v", skipped, out)
	}
}

// runtime/drive/checkpoint.ts runCheckpoint: after the threshold read, the
// planning continueOperation (and finishRunBoundary's) answers a
// cancellation that arrived since, so the may_finish boundary's finish
// commits nothing and the step is plain progress; without a threshold
// read (a registry that knows no model) the finish is the first turn and
// declines the same way. The next step reconciles with the aborted
// terminal.
func TestModelMayFinishFinishSkipsAfterCancel(t *testing.T) {
	for _, asks := range []bool{true, false} {
		m := mayFinishRun(t, 1e9)
		if !asks {
			delete(m.cfg.ContextWindows, thresholdModel)
		}
		e, err := m.Step(false)
		must(t, err)
		if e != (Expect{Kind: "terminate", Status: "completed"}) {
			t.Fatalf("step: %+v", e)
		}
		if asks {
			turns(t, m, 1) // the threshold read
		}
		m.Cancel()
		skipped, err := m.StepTurn() // the finish
		must(t, err)
		out, err := m.StepDone(true)
		must(t, err)
		if !skipped || out != (Outcome{Kind: "progress"}) {
			t.Fatalf("asks %t: skipped %t, outcome %+v", asks, skipped, out)
		}
		if e, err := m.Step(false); err != nil || e != (Expect{Kind: "terminate", Status: "aborted"}) {
			t.Fatalf("asks %t: next step %+v (%v)", asks, e, err)
		}
	}
}
