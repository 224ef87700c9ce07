package lane

import (
	"fmt"

	"github.com/frameproof/frameproof/impl/pi"
)

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
//
// A deferred step's first command reads its source handle, permit or not
// (runtime/drive/deferred.ts readSourceHandle goes through
// continueOperation); a poll's intent then re-checks the same leaf, so a
// poll step takes a second turn while its first found the leaf current.
// So does a checkpoint step that asks the threshold question: its first
// command reads the branch (threshold.go), its second commits the boundary.
// A may_finish boundary's finish declines a cancellation at either turn,
// as runCheckpoint's planning continueOperation does: nothing commits and
// the next step reconciles.
func (m *Model) StepTurn() (skipped bool, err error) {
	if m.plan == nil || m.turns >= 2 || (m.turn != nil && (*m.turn || (m.plan.Kind != "poll" && !m.asked))) {
		return false, fmt.Errorf("model/lane: step turn without a dispatched step")
	}
	m.turns++
	d := m.dispatched
	id, o, ok := m.current()
	moved := !ok || id != d.op || o.At != d.at || o.ResponseEntryID != d.resp
	m.gone = moved
	switch m.plan.Kind {
	case "wait", "fault":
		// a deferred step's source read: the handle is read only when
		// the leaf is still current, so a refused handle faults after it
		if !d.cancel && (d.at == AtDeferredSuspend || d.at == AtDeferredEffect) {
			moved = moved || o.CancelRequested
			break
		}
		return false, fmt.Errorf("model/lane: step turn for a %s step at %s, which has no command", m.plan.Kind, d.at)
	case "generate", "poll", "retry", "recover", "start", "checkpoint":
		// they decline on a cancellation that arrived after dispatch too
		// (a cancelled effect_pending was dispatched as a recovery already)
		moved = moved || (!d.cancel && o.CancelRequested)
	case "terminate":
		// a may_finish boundary's commands, its threshold read (the first
		// turn when it asks, threshold.go) and the finish (runCheckpoint's
		// planning continueOperation, then finishRunBoundary's), answer a
		// cancellation that arrived since dispatch; the aborted terminal
		// (settleOperation) does not ask
		moved = moved || (m.plan.Status == "completed" && o.CancelRequested)
	default:
		return false, fmt.Errorf("model/lane: step turn for a %s step, which has no command", m.plan.Kind)
	}
	m.turn = &moved
	m.lostAt(ok)
	if moved && m.plan.Kind == "recover" {
		// the recovery never read its frames: no recovery events (Step
		// emitted them unless they wait for the read)
		if !m.cfg.SyntheticAtRead {
			m.events = m.events[:d.events]
		}
		m.synthetic, m.syntheticDue = nil, false
	}
	return moved, nil
}

// skippedOutcome is what a skipped step reports: pi's fault when its
// command found no operation at all (lostAt).
func (m *Model) skippedOutcome(kind string) Outcome {
	if m.lost {
		m.lost = false
		return Outcome{Kind: "fault", Reason: LostOperationFault}
	}
	if kind == "terminate" && m.gone {
		return Outcome{Kind: "progress", Reason: "stale"}
	}
	return Outcome{Kind: "progress"}
}

// SyntheticRead: the step's recovery read its committed frames and the
// implementation read its clock at now. A driver whose clock moves while a
// step waits for its turn on the line reports that instant; the synthetic
// response (built at Step from the same committed prefix) takes it as its
// timestamp when no frame committed (the api:"unknown" message), and its
// frame budget diagnostic (the last one) takes it in any case.
func (m *Model) SyntheticRead(now float64) error {
	if m.plan == nil || m.plan.Kind != "recover" || m.synthetic == nil {
		return fmt.Errorf("model/lane: synthetic read without a recovery step")
	}
	_, o, ok := m.current()
	if ok && m.durable(o.ResponseEntryID) == nil {
		m.synthetic.Timestamp = now
	}
	if ok && m.truncated(o.ResponseEntryID) {
		d := m.synthetic.Diagnostics.Array()
		m.synthetic.Diagnostics = pi.ArrayValue(d[: len(d)-1 : len(d)-1])
		addBudgetDiagnostic(m.synthetic, m.cfg.FrameBudget, now)
	}
	m.emitSynthetic()
	return nil
}

// CommandTurn: a later command of the step in progress (the start step's
// checkpoint commit, an overflow's preparation read, the settlement)
// reached its turn on the FIFO line and committed nothing. Like the first
// command (StepTurn), it faults the harness when an external finalization
// removed the operation meanwhile, unless SkipStaleSettlement declines it.
func (m *Model) CommandTurn() error {
	if m.plan == nil {
		return fmt.Errorf("model/lane: command turn without a step in progress")
	}
	_, _, ok := m.current()
	m.lostAt(ok)
	return nil
}

// lostAt records pi's fault for a command that found no current operation
// (ok false): continueOperation and settleOperation (runtime/lane.ts) read
// state.operation!.state and throw, so the harness faults and the step
// writes and emits nothing more. With SkipStaleSettlement the command
// declines instead, as a stale step.
func (m *Model) lostAt(ok bool) {
	if !ok && !m.cfg.SkipStaleSettlement {
		m.lost = true
	}
}
