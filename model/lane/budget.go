package lane

import (
	"strconv"

	"github.com/frameproof/frameproof/impl/pi"
)

// The frame budget is frameproof's own option (pi reads every committed
// frame: runtime/progress.ts readAssistantFrames has no cap). With a budget
// B > 0, recovery and snapshots read the first B committed frames of a
// response in list order; when the list holds more, the reduction is that
// of the first B (what a reader sees after the events those frames encode),
// the snapshot says it was truncated, and a recovery's synthetic response
// carries one more diagnostic naming the budget. A list of exactly B frames
// is read whole.

// DiagnosticFrameBudget is the diagnostic type of a budget-truncated
// recovery.
const DiagnosticFrameBudget = "frame_budget_exceeded"

// truncated reports whether the committed frame list of resp is longer than
// the budget.
func (m *Model) truncated(resp string) bool {
	s := m.streams[resp]
	return s != nil && m.cfg.FrameBudget > 0 && len(s.committed) > m.cfg.FrameBudget
}

// addBudgetDiagnostic appends the budget's diagnostic to the message's
// diagnostics: {type, timestamp, details: {budget, message}}, the timestamp
// the instant recovery read the frames.
func addBudgetDiagnostic(msg *pi.AssistantMessage, budget int, now float64) {
	details := pi.NewObject()
	details.Set("budget", pi.NumberValue(float64(budget)))
	details.Set("message", pi.StringValue("Recovery read only the first "+strconv.Itoa(budget)+
		" committed frames; later committed frames were not reduced."))
	d := pi.NewObject()
	d.Set("type", pi.StringValue(DiagnosticFrameBudget))
	d.Set("timestamp", pi.NumberValue(now))
	d.Set("details", pi.ObjectValue(details))
	var all []pi.JSONValue
	if msg.Diagnostics.Kind() == pi.Array {
		all = append(all, msg.Diagnostics.Array()...)
	}
	msg.Diagnostics = pi.ArrayValue(append(all, pi.ObjectValue(d)))
}
