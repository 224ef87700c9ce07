package lane

import "testing"

// runtime/drive/checkpoint.ts startRun: its commit is a continueOperation,
// so a cancel committed after the step was dispatched leaves the operation
// at `starting` (no TX) and the next step reconciles it
// (reconcile.ts publishAbortedTerminal).
func TestStartStepCommitsNothingAfterCancel(t *testing.T) {
	m := newModel()
	must(t, startRunOn(m, "op", "u1", Run{UserText: "hi", Model: ModelRef{"openai", "gpt"}, MaxAttempts: 1}))
	e, err := m.Step(false)
	must(t, err)
	if e.Kind != "start" {
		t.Fatalf("first step of a run: %+v", e)
	}
	m.Cancel()
	m.TakeTX()
	out, err := m.StepDone(true)
	must(t, err)
	if ws, known := m.TakeTX(); known || out != (Outcome{Kind: "progress"}) {
		t.Fatalf("cancelled start step: %+v, TX %v", out, ws)
	}
	if at := m.Committed().Ops["op"].At; at != AtStarting {
		t.Fatalf("op at %s after a cancelled start step", at)
	}
	e, err = m.Step(false)
	must(t, err)
	if e != (Expect{Kind: "terminate", Status: "aborted"}) {
		t.Fatalf("step after the cancel: %+v", e)
	}
}

// runtime/drive/checkpoint.ts runCheckpoint: a cancel that commits between
// the checkpoint step's dispatch and its turn skips it; the step id is
// minted only by a committed checkpoint, so a second checkpoint is refused.
func TestCheckpointStepSkipsAfterCancel(t *testing.T) {
	m := newModel()
	must(t, startRunOn(m, "op", "u1", Run{UserText: "hi", Model: ModelRef{"openai", "gpt"}, MaxAttempts: 1}))
	_, err := m.Step(false)
	must(t, err)
	_, err = m.StepDone(true)
	must(t, err)
	e, err := m.Step(false)
	must(t, err)
	if e.Kind != "checkpoint" {
		t.Fatalf("second step of a run: %+v", e)
	}
	m.Cancel()
	skipped, err := m.StepTurn()
	must(t, err)
	if !skipped {
		t.Fatal("a cancel after dispatch did not skip the checkpoint step")
	}
	if err := m.Checkpoint("s1"); err == nil {
		t.Fatal("a checkpoint committed on a cancelled operation was accepted")
	}
}
