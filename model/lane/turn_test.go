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
	must(t, startRunOn(m, "op", "u1", Run{UserText: "hi", Model: ModelRef{"openai", "gpt"}, MaxAttempts: 1}))
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
	m.cfg.SkipStaleSettlement = true // pi's fault instead: TestLostOperationFaults
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

// lostCase reaches a step whose operation an external finalization removes
// before the step's command gets its turn on the line.
type lostCase struct {
	name string
	// step dispatches the step and finalizes the operation; turn feeds
	// the command's turn (StepTurn or CommandTurn).
	step func(t *testing.T, m *Model)
	turn func(m *Model) error
	// declined is the outcome with SkipStaleSettlement.
	declined Outcome
}

func finalizeNow(t *testing.T, m *Model) {
	t.Helper()
	if ok, err := m.Finalize("failed", "external", "x"); !ok || err != nil {
		t.Fatalf("finalize: %v %v", ok, err)
	}
}

func dispatchStep(t *testing.T, m *Model, kind string) {
	t.Helper()
	e, err := m.Step(false)
	must(t, err)
	if e.Kind != kind {
		t.Fatalf("step: %+v, want %s", e, kind)
	}
}

func stepTurn(m *Model) error { _, err := m.StepTurn(); return err }

var lostCases = []lostCase{
	{"start", func(t *testing.T, m *Model) {
		dispatchStep(t, m, "start")
		finalizeNow(t, m)
	}, stepTurn, Outcome{Kind: "progress"}},
	{"start commit", func(t *testing.T, m *Model) {
		dispatchStep(t, m, "start")
		must(t, stepTurn(m)) // the prompt read found the run
		finalizeNow(t, m)
	}, (*Model).CommandTurn, Outcome{Kind: "progress"}},
	{"checkpoint", func(t *testing.T, m *Model) {
		dispatchStep(t, m, "start")
		_, err := m.StepDone(true)
		must(t, err)
		dispatchStep(t, m, "checkpoint")
		finalizeNow(t, m)
	}, stepTurn, Outcome{Kind: "progress"}},
	{"intent", func(t *testing.T, m *Model) {
		toReady(t, m, "s1")
		dispatchStep(t, m, "generate")
		finalizeNow(t, m)
	}, stepTurn, Outcome{Kind: "progress"}},
	{"settlement", func(t *testing.T, m *Model) {
		toReady(t, m, "s1")
		dispatchStep(t, m, "generate")
		must(t, m.Intent("op", "r1", "g1", 1))
		must(t, m.Admit())
		finalizeNow(t, m)
	}, (*Model).CommandTurn, Outcome{Kind: "progress", Reason: "stale"}},
	{"terminal", func(t *testing.T, m *Model) {
		toReady(t, m, "s1")
		m.Cancel()
		dispatchStep(t, m, "terminate")
		finalizeNow(t, m)
	}, stepTurn, Outcome{Kind: "progress", Reason: "stale"}},
}

// runtime/lane.ts continueOperation/settleOperation: a drive command that
// reaches the line after an external finalization removed its operation
// reads state.operation!.state of null and faults the harness; with
// SkipStaleSettlement (frameproof's option) it declines instead.
func TestLostOperationFaults(t *testing.T) {
	for _, c := range lostCases {
		for _, skip := range []bool{false, true} {
			m := newModel()
			m.cfg.SkipStaleSettlement = skip
			must(t, startRunOn(m, "op", "u1", Run{UserText: "hi", Model: ModelRef{"openai", "gpt"}, MaxAttempts: 1}))
			c.step(t, m)
			must(t, c.turn(m))
			out, err := m.StepDone(true)
			must(t, err)
			want := Outcome{Kind: "fault", Reason: LostOperationFault}
			if skip {
				want = c.declined
			}
			if out != want {
				t.Errorf("%s (skip %t): outcome %+v, want %+v", c.name, skip, out, want)
			}
		}
	}
}
