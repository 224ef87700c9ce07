package lane

import "fmt"

// dispatch is what a drive step was dispatched on: the operation and the
// leaf it read before its first command reached its turn on the line.
type dispatch struct {
	op, at, resp string
	cancel       bool
	events       int // len(events) before Step emitted anything
}

// StepTurn: the step's first command (intent, poll intent, retry-ready,
// recovery read or terminal TX) reached its turn on the FIFO line. A step
// reads the operation when it is dispatched; a cancellation or an external
// finalization can commit between the dispatch and that turn. The command
// then finds the operation moved on and commits nothing, and the step
// reports progress ("stale" for a terminal step whose operation was
// finalized). StepTurn reports whether the step was skipped that way.
//
// Drivers with their own scheduler call it at the command's turn, before
// feeding that command's commit; drivers that never let cancel or finalize
// in between may skip it (Step and StepDone behave as before).
func (m *Model) StepTurn() (skipped bool, err error) {
	if m.plan == nil || m.turn != nil {
		return false, fmt.Errorf("model/lane: step turn without a dispatched step")
	}
	d := m.dispatched
	id, o, ok := m.current()
	moved := !ok || id != d.op || o.At != d.at || o.ResponseEntryID != d.resp
	switch m.plan.Kind {
	case "generate", "poll", "retry", "recover", "start", "checkpoint":
		// they decline on a cancellation that arrived after dispatch too
		// (a cancelled effect_pending was dispatched as a recovery already)
		moved = moved || (!d.cancel && o.CancelRequested)
	case "terminate":
	default:
		return false, fmt.Errorf("model/lane: step turn for a %s step, which has no command", m.plan.Kind)
	}
	m.turn = &moved
	if moved && m.plan.Kind == "recover" {
		// the recovery never read its frames: no recovery events
		m.events = m.events[:d.events]
		m.synthetic = nil
	}
	return moved, nil
}

// skippedOutcome is what a skipped step reports.
func (m *Model) skippedOutcome(kind string) Outcome {
	if kind == "terminate" {
		return Outcome{Kind: "progress", Reason: "stale"}
	}
	return Outcome{Kind: "progress"}
}

// SyntheticRead: the step's recovery read its committed frames and the
// implementation read its clock at now. A driver whose clock moves while a
// step waits for its turn on the line reports that instant; the synthetic
// response (built at Step from the same committed prefix) takes it as its
// timestamp when no frame committed (the api:"unknown" message).
func (m *Model) SyntheticRead(now float64) error {
	if m.plan == nil || m.plan.Kind != "recover" || m.synthetic == nil {
		return fmt.Errorf("model/lane: synthetic read without a recovery step")
	}
	if _, o, ok := m.current(); ok && m.durable(o.ResponseEntryID) == nil {
		m.synthetic.Timestamp = now
	}
	return nil
}
