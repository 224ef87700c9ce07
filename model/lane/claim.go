package lane

import "fmt"

// ObserveDrive: a second drive call arrived while a drive step is in
// progress. pi's Lane.drive (runtime/lane.ts) claims Lane.activeDrive; a
// claim that finds the active drive on the current operation is "observe":
// the call runs no procedure (no commit, no provider request, no event) and
// returns the active drive's outcome. With no step in progress there is
// nothing to observe: the call is an ordinary Step.
func (m *Model) ObserveDrive() error {
	if m.plan == nil {
		return fmt.Errorf("model/lane: observe drive: no drive step is in progress")
	}
	m.observers++
	return nil
}

// ObservedDone: an observing call returned. It must report the outcome of
// the step it observed (recorded by StepDone); ok=false when that step
// failed (StepDone(false)), and then the call fails too. A process loss
// (Crash) takes the observing calls with it: nothing is left to report.
func (m *Model) ObservedDone() (Outcome, bool, error) {
	if len(m.observed) == 0 {
		return Outcome{}, false, fmt.Errorf("model/lane: observed drive returned before the drive it observed")
	}
	o := m.observed[0]
	m.observed = m.observed[1:]
	return o.out, o.ok, nil
}

// observedStep is the outcome an observing call reports.
type observedStep struct {
	out Outcome
	ok  bool
}

// releaseObservers hands the finished step's outcome to every call that
// observed it.
func (m *Model) releaseObservers(out Outcome, ok bool) {
	for ; m.observers > 0; m.observers-- {
		m.observed = append(m.observed, observedStep{out: out, ok: ok})
	}
}
