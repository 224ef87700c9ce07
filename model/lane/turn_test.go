package lane

import (
	"strings"
	"testing"
)

// A cancellation between a generate step's dispatch and its intent's turn:
// the step is skipped (progress, no intent) and the next step terminates.
// Without the cancellation the same turn is not skipped, and an intent
// committed after a skip verdict is rejected.
func TestStepTurnSkipsAfterCancel(t *testing.T) {
	m := newModel()
	must(t, m.StartRun("op", "u1", Run{UserText: "hi", Model: ModelRef{"openai", "gpt"}, MaxAttempts: 1}))
	toReady(t, m, "s1")
	_, err := m.Step(false)
	must(t, err)
	m.Cancel()
	skipped, err := m.StepTurn()
	must(t, err)
	if !skipped {
		t.Fatal("a cancellation after dispatch did not skip the generate step")
	}
	out, err := m.StepDone(true)
	must(t, err)
	if out != (Outcome{Kind: "progress"}) {
		t.Fatalf("skipped step outcome: %+v", out)
	}
	e, err := m.Step(false)
	must(t, err)
	if e.Kind != "terminate" || e.Status != "aborted" {
		t.Fatalf("step after cancel: %+v", e)
	}
	if skipped, err := m.StepTurn(); err != nil || skipped {
		t.Fatalf("terminal turn of a current op: skipped=%v err=%v", skipped, err)
	}

	m = started(t, 1) // Step + Intent already fed
	if _, err := m.StepTurn(); err != nil {
		t.Fatal(err)
	}
	if _, err := m.StepTurn(); err == nil {
		t.Fatal("a second turn for one step was accepted")
	}
}

// A recovery whose operation was finalized before its frame read: the
// recovery events the model announced at Step are withdrawn, the step is a
// plain progress step; SyntheticRead retimes a frameless synthetic.
func TestStepTurnRecoveryFinalized(t *testing.T) {
	m := started(t, 2)
	m.Crash()
	_, err := m.Step(false)
	must(t, err)
	if ok, err := m.Finalize("failed", "external", "x"); !ok || err != nil {
		t.Fatal("finalize found no operation")
	}
	skipped, err := m.StepTurn()
	must(t, err)
	if !skipped || strings.Contains(strings.Join(m.Events(), ","), "recovery") {
		t.Fatalf("skipped=%v events=%v", skipped, m.Events())
	}
	out, err := m.StepDone(true)
	must(t, err)
	if out != (Outcome{Kind: "progress"}) {
		t.Fatalf("outcome: %+v", out)
	}

	m = started(t, 2)
	m.Crash()
	_, err = m.Step(false)
	must(t, err)
	skipped, err = m.StepTurn()
	must(t, err)
	if skipped {
		t.Fatal("a current orphan's recovery was skipped")
	}
	must(t, m.SyntheticRead(4242))
	must(t, m.Settle())
	st := m.Committed()
	if last := st.Entries[len(st.Entries)-1]; !strings.Contains(last.Message, `"timestamp":4242`) {
		t.Fatalf("synthetic not retimed: %s", last.Message)
	}
}
