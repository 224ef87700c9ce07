package lane

import "fmt"

// pi's effect gate (execution/effect-gate.ts) as the model states it: a
// cancel request begins the abort of the current operation's drive at once,
// before its durable cancel_requested commits (runtime/lane.ts
// requestOperationAbort). From then on no effect of that operation is
// admitted: no provider request, no deferred poll, no retry wait. A step
// whose intent already committed awaits the cancellation and reports
// progress; the next step reconciles (a synthetic aborted response for an
// effect_pending leaf, the aborted terminal otherwise).

// BeginAbort: a cancel request began (call it when the request is made,
// before its commit). A no-op when no operation is current.
func (m *Model) BeginAbort() {
	if id, _, ok := m.current(); ok {
		m.aborting = id
	}
}

// Admit: the step's provider request (or deferred poll) was made. It is an
// error after the operation's abort began, or without an intent to serve.
func (m *Model) Admit() error {
	s := m.live
	if m.plan == nil || (m.plan.Kind != "generate" && m.plan.Kind != "poll") || !m.intentSeen || s == nil {
		return fmt.Errorf("model/lane: a provider request was made without a committed intent in a generate/poll step")
	}
	if s.admitted {
		return fmt.Errorf("model/lane: a second provider request for %s", s.resp)
	}
	if m.aborting == s.op {
		return fmt.Errorf("model/lane: provider request for %s after the cancel of %s began (the effect gate must refuse it)", s.resp, s.op)
	}
	s.admitted = true
	return nil
}
