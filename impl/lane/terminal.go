package lane

import (
	"errors"
	"fmt"

	"github.com/frameproof/frameproof/impl/env"
	"github.com/frameproof/frameproof/impl/pi"
	"github.com/frameproof/frameproof/impl/store"
)

// ErrNoOperation rejects commands that need a current operation.
var ErrNoOperation = errors.New("lane: no current operation")

// ErrResultError is pi's refusal (runtime/drive/terminal.ts
// operationResultRecord) of a result whose error does not match its
// status: a failed result carries an error and no other status does.
var ErrResultError = errors.New("Only a failed operation result may carry an error")

// checkResultError applies operationResultRecord's rule.
func checkResultError(status string, opErr *OpError) error {
	if (status == "failed") != (opErr != nil) {
		return ErrResultError
	}
	return nil
}

// cleanupWrites is terminal.ts's operation-owned suffix: delete meta and
// state, everything under the op's tool_args/tool_memo/preparation/
// tool_output prefixes, the current effect_pending frame list, and the
// staged result of each outcome_ready call of a tools leaf.
func (l *Lane) cleanupWrites(op string, state *OpState) ([]store.Write, error) {
	writes := []store.Write{store.DeleteValueRaw(OpMetaAddr(op)), store.DeleteValueRaw(OpStateAddr(op))}
	for _, ns := range []string{NSToolArgs, NSToolMemo, NSPreparation, NSPendingOutput} {
		vals, err := l.cfg.Storage.ScanValues(ns, op+":")
		if err != nil {
			return nil, fmt.Errorf("lane: terminal cleanup: scan %s: %w", ns, err)
		}
		for _, v := range vals {
			writes = append(writes, store.DeleteValueRaw(v.Address))
		}
	}
	if state != nil && state.At.IsEffectPending() && !l.cfg.bugs.on(bugSettleWithoutDelete) {
		writes = append(writes, store.DeleteListRaw(FramesAddr(op, state.ResponseEntryID)))
	}
	if state != nil && state.At == LeafTools {
		for _, c := range state.Calls {
			if c.status() == CallOutcomeReady {
				writes = append(writes, store.DeleteValueRaw(PendingEntryAddr(c.ResultEntryID)))
			}
		}
	}
	return writes, nil
}

// finishWrites is cleanup + set pi.result + set lane state (settleOperation's
// finish decision).
func (l *Lane) finishWrites(cur view, rec ResultRecord) ([]store.Write, LaneState, error) {
	writes, err := l.cleanupWrites(cur.op.ID, cur.op.State)
	if err != nil {
		return nil, LaneState{}, err
	}
	ls := LaneState{CurrentOperationID: nil, LastOperationID: strp(cur.op.ID), Inbox: cur.laneState.Inbox}
	writes = append(writes, store.SetValueRaw(ResultAddr(cur.op.ID), rec.raw()), store.SetValueRaw(LaneStateAddr(l.cfg.Name), ls.raw()))
	return writes, ls, nil
}

// terminatePlanner builds the terminal transaction for the current
// operation with status (pi's publishAbortedTerminal / checkpoint finish /
// external finalization).
func (l *Lane) terminatePlanner(status string, opErr *OpError, onlyOp string, rec *ResultRecord) func(cur view) (plan, error) {
	return func(cur view) (plan, error) {
		if err := checkResultError(status, opErr); err != nil {
			// pi throws inside the planner and faults; Finalize is
			// frameproof's own entry point, so a caller's mismatch is
			// refused without a commit and the lane stays usable.
			return plan{}, &rejectError{err}
		}
		if onlyOp != "" && (cur.op == nil || cur.op.ID != onlyOp) {
			// A drive step's target was finalized externally while the step
			// waited for its turn: as a settlement that lost that race.
			return plan{}, l.staleTarget(cur)
		}
		if cur.op == nil {
			return plan{}, &rejectError{ErrNoOperation}
		}
		*rec = ResultRecord{OperationID: cur.op.ID, Kind: cur.op.Meta.Kind, Status: status, Error: opErr,
			FromTipID: cur.op.Meta.SourceTipID, TipID: cur.tip, StartedAt: cur.op.Meta.StartedAt, EndedAt: l.now()}
		writes, ls, err := l.finishWrites(cur, *rec)
		if err != nil {
			return plan{}, err
		}
		next := cur.clone()
		next.op, next.laneState = nil, ls
		return plan{commit: true, writes: writes, next: next}, nil
	}
}

func (l *Lane) terminate(name, status string, opErr *OpError, onlyOp string) (StepResult, error) {
	var rec ResultRecord
	_, committed, err := l.command(name, thenEmit(l.terminatePlanner(status, opErr, onlyOp, &rec), func(store.CommitResult) []Event {
		return []Event{{Type: EvRunEnd, RunID: rec.OperationID, Status: status}}
	}))
	if errors.Is(err, errStale) {
		return StepResult{Kind: StepProgress, Reason: "stale"}, nil
	}
	if err != nil {
		return StepResult{}, err
	}
	if !committed {
		return StepResult{Kind: StepProgress}, nil
	}
	return StepResult{Kind: StepSettled, Status: status}, nil
}

// Finalize is authorized external finalization: one terminal transaction
// that also deletes the operation-owned frame list. A frame append already
// queued behind it is then declined by the fence and recreates nothing.
// status is the result status (e.g. "aborted", "failed", "completed");
// opErr is given exactly when status is "failed", as pi's
// operationResultRecord requires (otherwise ErrResultError, nothing commits).
func (l *Lane) Finalize(status string, opErr *OpError) error {
	return l.FinalizeAsync(status, opErr).Wait()
}

// FinalizeAsync enqueues Finalize on the line and returns without waiting
// (the simulator uses it to race finalization against frame appends). The
// future fails with ErrNoOperation when no operation is current at its turn.
// run_end is not emitted on this path.
func (l *Lane) FinalizeAsync(status string, opErr *OpError) env.Future {
	var rec ResultRecord
	fut, _ := l.commandAsync("finalize", l.terminatePlanner(status, opErr, "", &rec))
	return fut
}

// RequestCancel durably marks the current operation cancel_requested (no-op
// when idle or already cancelled). Like pi's requestOperationAbort it first
// begins the abort of the current operation's drive synchronously, so an
// effect not yet admitted is never started (the step awaits this command
// and the next step reconciles); once the command completed it signals the
// drive's abort (Request.Abort, retry waits). The TX: delete the pending
// entries of queued steer and followUp items, set the op state, set the lane
// state without those items; its batch is queue_update with the remaining
// queues when an item was removed (pi's batch also opens with
// operation_abort, which this lane does not emit).
func (l *Lane) RequestCancel() error {
	if err := l.usable(); err != nil {
		return err
	}
	cancellation := l.beginAbort()
	var op string
	_, _, err := l.command("cancel", func(cur view) (plan, error) {
		if cur.op == nil {
			return plan{}, nil
		}
		op = cur.op.ID
		if cur.op.State.Control.CancelRequested {
			return plan{}, nil
		}
		next := cur.clone()
		next.op.State.Control = Control{CancelRequested: true, RequestedAt: l.now()}
		kept, removed, err := splitSteering(cur.laneState.Inbox)
		if err != nil {
			return plan{}, err
		}
		evs, err := l.cancelEvents(kept, removed)
		if err != nil {
			return plan{}, err
		}
		var writes []store.Write
		for _, id := range removed {
			writes = append(writes, store.DeleteValueRaw(valueAddr(NSPendingEntry, id)))
		}
		next.laneState.Inbox = kept
		writes = append(writes, store.SetValueRaw(OpStateAddr(cur.op.ID), MarshalState(next.op.State)),
			store.SetValueRaw(LaneStateAddr(l.cfg.Name), next.laneState.raw()))
		return plan{commit: true, writes: writes, next: next, events: func(store.CommitResult) []Event { return evs }}, nil
	})
	if cancellation != nil {
		cancellation.Resolve(err)
	}
	if err != nil {
		return err
	}
	// settleGate: signal on a new or a repeated request for the operation
	if op != "" {
		l.signalAbort(op)
	}
	return nil
}

// cancelEvents is requestOperationAbort's queue_update (runtime/lane.ts):
// emitted when the request removed queued items, with the remaining queues.
func (l *Lane) cancelEvents(kept pi.JSONValue, removed []string) ([]Event, error) {
	if len(removed) == 0 {
		return nil, nil
	}
	queues, err := l.laneQueues(kept)
	if err != nil {
		return nil, err
	}
	return []Event{{Type: EvQueueUpdate, Queues: queues}}, nil
}

// splitSteering separates queued steer/followUp items (cancellation removes
// them) from the rest of the inbox, keeping order.
func splitSteering(inbox pi.JSONValue) (kept pi.JSONValue, removed []string, err error) {
	if inbox.IsUndefined() {
		return inbox, nil, nil
	}
	if inbox.Kind() != pi.Array {
		return inbox, nil, fmt.Errorf("lane: cancel: lane state inbox is not an array")
	}
	var keep []pi.JSONValue
	for i, item := range inbox.Array() {
		r := &reader{path: "laneState.inbox[" + itoa(i) + "]"}
		kind, id := r.str(item, "kind"), r.str(item, "entryId")
		if r.err != nil {
			return inbox, nil, fmt.Errorf("lane: cancel: %w", r.err)
		}
		if kind == "steer" || kind == "followUp" {
			removed = append(removed, id)
			continue
		}
		keep = append(keep, item)
	}
	return pi.ArrayValue(keep), removed, nil
}
