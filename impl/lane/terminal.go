package lane

import (
	"errors"
	"fmt"

	"github.com/frameproof/frameproof/impl/env"
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

func (l *Lane) terminate(name Command, status string, opErr *OpError, onlyOp string) (StepResult, error) {
	var rec ResultRecord
	_, committed, err := l.command(name, thenEmit(l.terminatePlanner(status, opErr, onlyOp, &rec), func(store.CommitResult) []Event {
		return []Event{runEndEvent(&rec)}
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
	fut, _ := l.commandAsync(CmdFinalize, l.terminatePlanner(status, opErr, "", &rec))
	return fut
}
