package lane

import (
	"strings"
	"testing"

	"github.com/frameproof/frameproof/impl/pi"
)

// budgeted is a run whose response r1 committed one frame per event for
// the drafts, then crashed: the model runs under frame budget budget.
func budgeted(t *testing.T, budget int, drafts ...string) *Model {
	m := startedWith(t, Run{UserText: "hi", Model: ModelRef{"openai", "gpt"}, MaxAttempts: 1})
	m.cfg.FrameBudget = budget
	for i, d := range drafts {
		typ := pi.EventTextDelta
		if i == 0 {
			typ = pi.EventStart
		}
		must(t, m.ProviderEvent(&pi.Event{Type: typ, Partial: partial(d)}))
		must(t, m.FrameEnqueued("r1", i, typ, []byte(`{}`)))
		must(t, m.FrameCommitted("r1", i))
	}
	m.Crash()
	return m
}

// Past the budget, snapshots and recovery reduce the first budget frames,
// say so, and the synthetic response carries the budget's diagnostic with
// the read's timestamp; a list of exactly budget frames is read whole.
func TestFrameBudgetCutsTheReduction(t *testing.T) {
	m := budgeted(t, 2, "a", "ab", "abc")
	if s := m.Capture(); !s.Truncated || !strings.Contains(s.StreamingMessage, `"text":"ab"`) {
		t.Fatalf("capture past the budget: %+v", s)
	}
	e, err := m.Step(false)
	must(t, err)
	if e.Kind != "recover" {
		t.Fatalf("step: %+v", e)
	}
	must(t, m.SyntheticRead(1500))
	must(t, m.Settle())
	msg := entryOf(t, m, "r1")
	want := `"diagnostics":[{"type":"frame_budget_exceeded","timestamp":1500,"details":{"budget":2,"message":"Recovery read only the first 2 committed frames; later committed frames were not reduced."}}]`
	if !strings.Contains(msg, `"text":"ab"`) || !strings.Contains(msg, want) {
		t.Fatalf("synthetic entry: %s", msg)
	}

	m = budgeted(t, 3, "a", "ab", "abc")
	if s := m.Capture(); s.Truncated || !strings.Contains(s.StreamingMessage, `"text":"abc"`) {
		t.Fatalf("capture at the budget: %+v", s)
	}
	_, err = m.Step(false)
	must(t, err)
	must(t, m.Settle())
	if msg := entryOf(t, m, "r1"); strings.Contains(msg, "diagnostics") {
		t.Fatalf("a diagnostic without truncation: %s", msg)
	}
}

// entryOf is the committed message of entry id.
func entryOf(t *testing.T, m *Model, id string) string {
	t.Helper()
	for _, e := range m.Committed().Entries {
		if e.ID == id {
			return e.Message
		}
	}
	t.Fatalf("no entry %s", id)
	return ""
}
