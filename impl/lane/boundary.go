package lane

import (
	"errors"
	"slices"

	"github.com/frameproof/frameproof/impl/pi"
	"github.com/frameproof/frameproof/impl/store"
)

// runCheckpoint is runtime/drive/checkpoint.ts runCheckpoint for a
// need_assistant continuation: pi's threshold check first
// (prepareThreshold), then one TX places the boundary's queued input
// (boundary.ts planBoundaryInbox without followUps: write items and the
// steer items, one or all per the run's settings.steeringMode) and moves
// the checkpoint to assistant.ready through assistantReadyAtBoundary,
// which mints the step id, with attempt 1. A placed message becomes the
// step's trigger (overflowRecoveryUsed false); otherwise a threshold
// compaction moves to summary.deciding (compactAtBoundary), or the
// checkpoint's trigger and flag carry over. The TX also sets the lane
// state (the placement always names the inbox).
func (l *Lane) runCheckpoint(op string, s *OpState) (StepResult, error) {
	th, err := l.prepareThreshold(op, s)
	if err != nil || th.declined {
		return StepResult{Kind: StepProgress}, err
	}
	var placed inboxPlacement
	var queues pi.JSONValue
	_, _, err = l.command(CmdCheckpoint, thenEmit(func(cur view) (plan, error) {
		if cur.op == nil || cur.op.ID != op || cur.op.State.At != LeafCheckpoint || cur.op.State.Control.CancelRequested {
			return plan{}, l.lostOperation(cur) // continueOperation: cancel_requested or moved on
		}
		p, q, err := l.planBoundary(cur, false)
		if err != nil {
			return plan{}, err
		}
		placed, queues = p, q
		if p.trigger == "" && th.prep != nil {
			return l.compactAtBoundary(cur, op, p, th.prep), nil
		}
		return l.readyAtBoundary(cur, op, p)
	}, func(res store.CommitResult) []Event {
		return boundaryEvents(op, placed, res, queues, th.prep)
	}))
	return StepResult{Kind: StepProgress}, err
}

// compactAtBoundary plans runCheckpoint's threshold compaction after the
// placement p: the placement's writes, pi.op.preparation, the op state at
// summary.deciding with a "threshold" task whose resume_checkpoint boundary
// resumes the checkpoint as it was, and the lane state with the remaining
// inbox.
func (l *Lane) compactAtBoundary(cur view, op string, p inboxPlacement, prep *compactionPrep) plan {
	s := cur.op.State
	st := s.scope(LeafSummaryDeciding)
	st.Task = jobj("taskId", prep.taskID, "reason", "threshold", "boundary", jobj("kind", "resume_checkpoint",
		"resumeAfter", jobj("continuation", s.Continuation.value(), "triggerEntryId", s.TriggerEntryID)))
	return l.boundaryCommit(cur, op, p, st, store.SetValueRaw(PreparationAddr(op, prep.taskID), prep.value.AppendJSON(nil)))
}

// boundaryEvents is a boundary commit's batch: the placement's events,
// then compaction_start when it compacts (checkpoint.ts runCheckpoint).
func boundaryEvents(op string, placed inboxPlacement, res store.CommitResult, queues pi.JSONValue, prep *compactionPrep) []Event {
	evs := placedInputEvents(op, placed.placed, res.Seqs, queues, placed.selected)
	if prep != nil && placed.trigger == "" {
		evs = append(evs, Event{Type: EvCompactionStart, RunID: op, Reason: "threshold", StartedAt: float64(res.Timestamp)})
	}
	return evs
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
// state, the lane state with the remaining inbox. pi spreads the whole
// checkpoint state into the ready state (runCheckpoint and
// finishRunBoundary pass it as the scope), so the ready state keeps the
// checkpoint's continuation and triggerEntryId (carriesCheckpoint).
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
	st := s.scope(LeafAssistantReady)
	st.Continuation, st.TriggerEntryID = s.Continuation, s.TriggerEntryID
	st.Gen = &GenerationContext{StepID: l.cfg.IDs.NewID(), TriggerEntryID: trigger,
		Configuration: configuration, StreamOptions: gen.StreamOptions, RetryPolicy: gen.RetryPolicy,
		OverflowRecoveryUsed: overflowUsed}
	st.NextAttempt = 1
	return l.boundaryCommit(cur, op, p, st), nil
}

// boundaryCommit plans a boundary's commit after the placement p: the
// placement's writes, extra, the op state st, the lane state with the
// remaining inbox.
func (l *Lane) boundaryCommit(cur view, op string, p inboxPlacement, st *OpState, extra ...store.Write) plan {
	next := cur.clone()
	next.op.State = st
	next.tip = p.tip
	ls := LaneState{CurrentOperationID: strp(op), LastOperationID: cur.laneState.LastOperationID, Inbox: p.inbox}
	next.laneState = ls
	writes := append(append(slices.Clone(p.writes), extra...),
		store.SetValueRaw(OpStateAddr(op), MarshalState(st)), store.SetValueRaw(LaneStateAddr(l.cfg.Name), ls.raw()))
	return plan{commit: true, writes: writes, next: next}
}

// finishBoundary is runCheckpoint for a may_finish continuation, with
// finishRunBoundary's replan in the same command (no before_run_end hook
// is configured, so pi's replan sees what its first plan saw unless an
// enqueue slips between them; this lane's one command decides at the
// later of the two turns). pi's threshold check runs first
// (prepareThreshold); a read that declines ends the step ("stale" when
// the operation is gone). Like pi's planning continueOperation, the
// command declines a run cancelled since the step read it (after the
// threshold read, or after dispatch without one): nothing commits and the
// next step reconciles. Without a threshold compaction the placement
// takes followUp items when nothing else projects. A placed message starts
// the next assistant step (assistant.ready at the boundary); otherwise a
// threshold compaction moves to summary.deciding, or the run finishes
// completed with the placement's writes before the cleanup, its result
// naming the placement's tip.
func (l *Lane) finishBoundary(op string, s *OpState) (StepResult, error) {
	th, err := l.prepareThreshold(op, s)
	if err != nil || th.declined {
		return StepResult{Kind: StepProgress, Reason: staleReason(th.stale)}, err
	}
	var placed inboxPlacement
	var queues pi.JSONValue
	var rec ResultRecord
	finished := false
	_, committed, err := l.command(CmdFinish, thenEmit(func(cur view) (plan, error) {
		if cur.op == nil || cur.op.ID != op {
			return plan{}, l.staleTarget(cur)
		}
		if cur.op.State.At != LeafCheckpoint || cur.op.State.Control.CancelRequested {
			// continueOperation: cancel_requested, so runCheckpoint's
			// planning (and finishRunBoundary's replan) commits nothing
			// and the next step reconciles the cancellation
			return plan{}, nil
		}
		p, q, err := l.planBoundary(cur, th.prep == nil)
		if err != nil {
			return plan{}, err
		}
		placed, queues = p, q
		switch {
		case p.trigger != "":
			return l.readyAtBoundary(cur, op, p)
		case th.prep != nil:
			return l.compactAtBoundary(cur, op, p, th.prep), nil
		}
		finished = true
		return l.finishPlan(cur, p, &rec)
	}, func(res store.CommitResult) []Event {
		evs := boundaryEvents(op, placed, res, queues, th.prep)
		if finished {
			evs = append(evs, runEndEvent(&rec))
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

// staleReason is a declined step's reason: "stale" when its operation is
// no longer the current one.
func staleReason(stale bool) string {
	if stale {
		return "stale"
	}
	return ""
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
