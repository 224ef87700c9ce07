package lane

import (
	"strings"
	"testing"

	"github.com/frameproof/frameproof/impl/pi"
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

// suspendedModel is a run whose first generation settled deferred: the
// operation is at deferred.suspended and no step is in progress.
func suspendedModel(t *testing.T, skip bool) *Model {
	t.Helper()
	m := startedWith(t, Run{UserText: "hi", Model: ModelRef{"openai", "gpt"}, MaxAttempts: 1, ThinkingLevel: "off", StepID: "s1"})
	m.cfg.SkipStaleSettlement = skip
	handle := partial("")
	handle.API, handle.StopReason = "a", pi.StopDeferred
	handle.Deferred = &pi.DeferredHandle{ID: "h", Provider: "openai", ModelID: "gpt", API: "a"}
	must(t, m.ProviderEvent(&pi.Event{Type: pi.EventStart, Partial: partial("")}))
	must(t, m.ProviderEvent(&pi.Event{Type: pi.EventDone, Reason: pi.StopDeferred, Message: handle}))
	must(t, m.AfterResponse())
	must(t, m.Settle())
	_, err := m.StepDone(true)
	must(t, err)
	return m
}

// runtime/drive/deferred.ts readSourceHandle: a deferred step reads its
// source handle through continueOperation, permit or not, and a poll's
// intent (publishPollIntent) re-checks the leaf: a finalization before
// either command faults with the null read (declined, with
// SkipStaleSettlement); a cancellation before the read makes the step
// continue (progress).
func TestDeferredStepTurns(t *testing.T) {
	cases := []struct {
		name   string
		permit bool
		// between runs after the step's dispatch; turns is how many
		// commands reach their turn before StepDone
		between func(t *testing.T, m *Model)
		turns   int
		want    Outcome // pi's default
		skipped Outcome // with SkipStaleSettlement
	}{
		{"wait finalized", false, finalizeNow, 1, Outcome{Kind: "fault", Reason: LostOperationFault}, Outcome{Kind: "progress"}},
		{"wait cancelled", false, func(_ *testing.T, m *Model) { m.Cancel() }, 1, Outcome{Kind: "progress"}, Outcome{Kind: "progress"}},
		{"wait current", false, func(*testing.T, *Model) {}, 1, Outcome{Kind: "waiting", Reason: "deferred"}, Outcome{Kind: "waiting", Reason: "deferred"}},
		{"poll finalized", true, finalizeNow, 1, Outcome{Kind: "fault", Reason: LostOperationFault}, Outcome{Kind: "progress"}},
		{"poll intent finalized", true, func(t *testing.T, m *Model) {
			if skipped, err := m.StepTurn(); err != nil || skipped {
				t.Fatalf("source read: skipped %v err %v", skipped, err)
			}
			finalizeNow(t, m)
		}, 1, Outcome{Kind: "fault", Reason: LostOperationFault}, Outcome{Kind: "progress"}},
	}
	for _, c := range cases {
		for _, skip := range []bool{false, true} {
			m := suspendedModel(t, skip)
			_, err := m.Step(c.permit)
			must(t, err)
			c.between(t, m)
			for i := 0; i < c.turns; i++ {
				_, err := m.StepTurn()
				must(t, err)
			}
			out, err := m.StepDone(true)
			must(t, err)
			want := c.want
			if skip {
				want = c.skipped
			}
			if out != want {
				t.Errorf("%s (skip %v): %+v, want %+v", c.name, skip, out, want)
			}
		}
	}
	m := suspendedModel(t, false)
	_, err := m.Step(false)
	must(t, err)
	must(t, stepTurn(m))
	if err := stepTurn(m); err == nil {
		t.Error("a wait step took a second turn")
	}
	// a poll step has two commands (source read, intent): no third turn
	m = suspendedModel(t, false)
	_, err = m.Step(true)
	must(t, err)
	must(t, stepTurn(m))
	must(t, stepTurn(m))
	if err := stepTurn(m); err == nil {
		t.Error("a poll step took a third turn")
	}
}

// runtime/drive/deferred.ts readSourceHandle reads the handle inside
// continueOperation: a step whose source pi refuses faults with
// readDeferredSourceHandle's message only when its read finds the leaf
// current; a finalization first faults with the null read, a
// cancellation first makes the step continue.
func TestDeferredSourceFaultAtItsTurn(t *testing.T) {
	const refused = "Deferred source missing is missing its assistant handle"
	cases := []struct {
		name    string
		between func(t *testing.T, m *Model)
		turn    bool
		want    Outcome
	}{
		{"read", func(*testing.T, *Model) {}, true, Outcome{Kind: "fault", Reason: refused}},
		{"no turn", func(*testing.T, *Model) {}, false, Outcome{Kind: "fault", Reason: refused}},
		{"finalized", finalizeNow, true, Outcome{Kind: "fault", Reason: LostOperationFault}},
		{"cancelled", func(_ *testing.T, m *Model) { m.Cancel() }, true, Outcome{Kind: "progress"}},
	}
	for _, c := range cases {
		for _, permit := range []bool{false, true} {
			m := suspendedModel(t, false)
			o := m.st.Ops["op"]
			o.SourceEntryID = "missing"
			m.st.Ops["op"] = o
			e, err := m.Step(permit)
			must(t, err)
			if e != (Expect{Kind: "fault", Reason: refused}) {
				t.Fatalf("%s: step %+v", c.name, e)
			}
			c.between(t, m)
			if c.turn {
				must(t, stepTurn(m))
			}
			out, err := m.StepDone(true)
			must(t, err)
			if out != c.want {
				t.Errorf("%s (permit %v): %+v, want %+v", c.name, permit, out, c.want)
			}
		}
	}
}
