package lane

import (
	"errors"
	"slices"

	"github.com/frameproof/frameproof/impl/pi"
	"github.com/frameproof/frameproof/impl/store"
)

// runCheckpoint is runtime/drive/checkpoint.ts runCheckpoint for a
// need_assistant continuation: one TX places the boundary's queued input
// (boundary.ts planBoundaryInbox without followUps: write items and the
// steer items, one or all per the run's settings.steeringMode) and moves
// the checkpoint to assistant.ready through assistantReadyAtBoundary,
// which mints the step id, with attempt 1. A placed message becomes the
// step's trigger (overflowRecoveryUsed false); otherwise the checkpoint's
// trigger and flag carry over. The TX also sets the lane state (the
// placement always names the inbox). frameproof has no model registry, so
// pi's threshold-compaction check (prepareCompactionThreshold, skipped for
// an unknown model) is not run.
func (l *Lane) runCheckpoint(op string) (StepResult, error) {
	var placed inboxPlacement
	var queues pi.JSONValue
	_, _, err := l.command("checkpoint", thenEmit(func(cur view) (plan, error) {
		if cur.op == nil || cur.op.ID != op || cur.op.State.At != LeafCheckpoint || cur.op.State.Control.CancelRequested {
			return plan{}, l.lostOperation(cur) // continueOperation: cancel_requested or moved on
		}
		p, q, err := l.planBoundary(cur, false)
		if err != nil {
			return plan{}, err
		}
		placed, queues = p, q
		return l.readyAtBoundary(cur, op, p)
	}, func(res store.CommitResult) []Event {
		return placedInputEvents(op, placed.placed, res.Seqs, queues, placed.selected)
	}))
	return StepResult{Kind: StepProgress}, err
}

// boundaryQueues are the remaining queues a placement's queue_update
// carries (read only when an item left the inbox, as pi reads them).
func (l *Lane) boundaryQueues(p inboxPlacement) (pi.JSONValue, error) {
	if !p.selected {
		return pi.JSONValue{}, nil
	}
	return l.laneQueues(p.inbox)
}

// readyAtBoundary plans the assistant.ready commit after the placement p
// (boundary.ts assistantReadyAtBoundary): the placement's writes, the op
// state, the lane state with the remaining inbox.
func (l *Lane) readyAtBoundary(cur view, op string, p inboxPlacement) (plan, error) {
	l.mu.Lock()
	gen := l.gen
	l.mu.Unlock()
	if gen == nil {
		return plan{}, errNoGeneration
	}
	if cur.config == nil { // a run on a lane never acquired: restore refuses such a lane
		return plan{}, laneConfigMissing(l.cfg.Name, "lane.config")
	}
	configuration := *cur.config
	configuration.ActiveToolNames = slices.Clone(configuration.ActiveToolNames)
	s := cur.op.State
	trigger, overflowUsed := s.TriggerEntryID, s.Continuation.OverflowRecoveryUsed
	if p.trigger != "" {
		trigger, overflowUsed = p.trigger, false
	}
	next := cur.clone()
	st := s.scope(LeafAssistantReady)
	st.Gen = &GenerationContext{StepID: l.cfg.IDs.NewID(), TriggerEntryID: trigger,
		Configuration: configuration, StreamOptions: gen.StreamOptions, RetryPolicy: gen.RetryPolicy,
		OverflowRecoveryUsed: overflowUsed}
	st.NextAttempt = 1
	next.op.State = st
	next.tip = p.tip
	ls := LaneState{CurrentOperationID: strp(op), LastOperationID: cur.laneState.LastOperationID, Inbox: p.inbox}
	next.laneState = ls
	writes := append(slices.Clone(p.writes), store.SetValueRaw(OpStateAddr(op), MarshalState(st)), store.SetValueRaw(LaneStateAddr(l.cfg.Name), ls.raw()))
	return plan{commit: true, writes: writes, next: next}, nil
}

// finishBoundary is runCheckpoint for a may_finish continuation, with
// finishRunBoundary's replan in the same command (no before_run_end hook
// is configured, so pi's replan sees what its first plan saw unless an
// enqueue slips between them; this lane's one command decides at the
// later of the two turns): the placement takes followUp items when
// nothing else projects. A placed message starts the next assistant step
// (assistant.ready at the boundary); otherwise the run finishes completed
// with the placement's writes before the cleanup, its result naming the
// placement's tip.
func (l *Lane) finishBoundary(op string) (StepResult, error) {
	var placed inboxPlacement
	var queues pi.JSONValue
	var rec ResultRecord
	finished := false
	_, committed, err := l.command("finish", thenEmit(func(cur view) (plan, error) {
		if cur.op == nil || cur.op.ID != op {
			return plan{}, l.staleTarget(cur)
		}
		p, q, err := l.planBoundary(cur, true)
		if err != nil {
			return plan{}, err
		}
		placed, queues = p, q
		if p.trigger != "" {
			return l.readyAtBoundary(cur, op, p)
		}
		finished = true
		return l.finishPlan(cur, p, &rec)
	}, func(res store.CommitResult) []Event {
		evs := placedInputEvents(op, placed.placed, res.Seqs, queues, placed.selected)
		if finished {
			evs = append(evs, Event{Type: EvRunEnd, RunID: rec.OperationID, Status: "completed"})
		}
		return evs
	}))
	if errors.Is(err, errStale) {
		return StepResult{Kind: StepProgress, Reason: "stale"}, nil
	}
	if err != nil || !committed {
		return StepResult{Kind: StepProgress}, err
	}
	if !finished {
		return StepResult{Kind: StepProgress}, nil
	}
	return StepResult{Kind: StepSettled, Status: "completed"}, nil
}

// finishPlan is settleOperation's finish after a placement: the
// placement's writes, the cleanup, the result and the lane state with the
// remaining inbox.
func (l *Lane) finishPlan(cur view, p inboxPlacement, rec *ResultRecord) (plan, error) {
	*rec = ResultRecord{OperationID: cur.op.ID, Kind: cur.op.Meta.Kind, Status: "completed",
		FromTipID: cur.op.Meta.SourceTipID, TipID: p.tip, StartedAt: cur.op.Meta.StartedAt, EndedAt: l.now()}
	after := cur.clone()
	after.tip, after.laneState.Inbox = p.tip, p.inbox
	writes, ls, err := l.finishWrites(after, *rec)
	if err != nil {
		return plan{}, err
	}
	next := after.clone()
	next.op, next.laneState = nil, ls
	return plan{commit: true, writes: append(slices.Clone(p.writes), writes...), next: next}, nil
}

// planBoundary plans the current operation's boundary placement and the
// queues its queue_update will carry (runCheckpoint and finishBoundary).
func (l *Lane) planBoundary(cur view, followUpWhenNoTrigger bool) (inboxPlacement, pi.JSONValue, error) {
	p, err := l.planBoundaryInbox(cur, cur.op.State.Settings, followUpWhenNoTrigger)
	if err != nil {
		return inboxPlacement{}, pi.JSONValue{}, err
	}
	queues, err := l.boundaryQueues(p)
	if err != nil {
		return inboxPlacement{}, pi.JSONValue{}, err
	}
	return p, queues, nil
}
