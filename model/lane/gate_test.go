package lane

import (
	"strings"
	"testing"

	"github.com/frameproof/frameproof/impl/pi"
)

// runtime/lane.ts requestOperationAbort + execution/effect-gate.ts admit:
// once a cancel began, the step whose intent committed makes no provider
// request; it reports progress and the next step reconciles to a synthetic
// aborted response with empty content and api "unknown".
func TestCancelBeforeAdmissionMakesNoRequest(t *testing.T) {
	m := intended(t, Run{UserText: "hi", Model: ModelRef{"openai", "gpt"}, MaxAttempts: 3, BaseDelayMs: 10})
	m.BeginAbort()
	if err := m.Admit(); err == nil {
		t.Fatal("a provider request after the cancel began was accepted")
	}
	m.Cancel()
	out, err := m.StepDone(true)
	must(t, err)
	if out.Kind != "progress" {
		t.Fatalf("step done: %+v", out)
	}
	e, err := m.Step(false)
	must(t, err)
	if e.Kind != "recover" {
		t.Fatalf("reconcile: %+v", e)
	}
	must(t, m.Settle())
	st := m.Committed()
	msg := st.Entries[1].Message
	for _, want := range []string{`"content":[]`, `"api":"unknown"`, `"stopReason":"aborted"`, InterruptedWarning} {
		if !strings.Contains(msg, want) {
			t.Fatalf("synthetic aborted response lacks %s: %s", want, msg)
		}
	}
}

// Without a cancel, a generate step that returns without its request is
// wrong.
func TestStepWithoutRequestNeedsACancel(t *testing.T) {
	m := intended(t, Run{UserText: "hi", Model: ModelRef{"openai", "gpt"}, MaxAttempts: 3, BaseDelayMs: 10})
	if _, err := m.StepDone(true); err == nil {
		t.Fatal("a generate step without its request and without a cancel was accepted")
	}
}

// session/session.ts StorageBackedSessionMutator.commit: a response still
// marked pending cannot settle; the lane must fault instead.
func TestPendingResponseMustNotSettle(t *testing.T) {
	m := started(t, 1)
	must(t, m.ProviderEvent(&pi.Event{Type: pi.EventStart, Partial: partial("x")}))
	final := partial("x")
	final.StopReason = pi.StopPending
	must(t, m.ProviderEvent(&pi.Event{Type: pi.EventDone, Reason: pi.StopPending, Message: final}))
	must(t, m.AfterResponse())
	err := m.Settle()
	if err == nil || !strings.Contains(err.Error(), PendingAssistantRefusal) {
		t.Fatalf("a pending response settled: %v", err)
	}
}

// runtime/drive/recovery.ts interruptedAssistantMessage: the synthetic
// response without a committed partial keeps the literal's key order,
// errorMessage before timestamp.
func TestNoFramesSyntheticKeepsLiteralOrder(t *testing.T) {
	m := started(t, 3)
	m.Crash()
	e, err := m.Step(false)
	must(t, err)
	if e.Kind != "recover" {
		t.Fatalf("step: %+v", e)
	}
	must(t, m.Settle())
	got := m.Committed().Entries[1].Message
	want := `"stopReason":"error","errorMessage":"` + InterruptedWarning + `","timestamp":`
	if !strings.Contains(got, want) || !strings.HasPrefix(got, `{"role":"assistant","content":[],"api":"unknown",`) {
		t.Fatalf("synthetic entry %s", got)
	}
}
