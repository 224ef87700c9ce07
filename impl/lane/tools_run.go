package lane

import (
	"errors"
	"fmt"

	"github.com/frameproof/frameproof/impl/pi"
)

// runTools is runtime/drive/tools.ts runTools for one Step: the whole batch,
// in runParallel's order unless settings.toolExecution or
// Config.ToolExecution says "sequential" (docs/TOOLS.md). It returns progress once it
// placed the batch's last call; a step whose operation was finalized
// meanwhile (a transaction's stale target, or gone before one) is a
// harmless stale step, and any other error has faulted the lane.
func (l *Lane) runTools(op string, s *OpState) (StepResult, error) {
	done, err := l.toolBatch(op, s)
	if errors.Is(err, errStale) || (err == nil && !done) {
		return StepResult{Kind: StepProgress, Reason: "stale"}, nil
	}
	if err != nil {
		return StepResult{}, err
	}
	return StepResult{Kind: StepProgress}, nil
}

// toolBatch runs the batch; done reports that this step placed its last call.
func (l *Lane) toolBatch(op string, s *OpState) (done bool, err error) {
	recovery := batchStarted(s)
	if recovery {
		l.emit(Event{Type: EvTurnStart, RunID: op, TurnID: s.BatchTurnID, Recovery: true})
	}
	src, err := l.readToolSource(op, s)
	if err != nil {
		return false, err
	}
	done, cur, err := l.materializeSeen(op, src, recovery)
	if done || err != nil {
		return done, err
	}
	if cur == nil {
		return false, nil
	}
	if cur.Control.CancelRequested {
		return l.runSequential(op, src, nil, recovery) // without execution
	}
	ts := activeTools(l.cfg.Tools, s.Configuration)
	if l.sequentialTools(cur) {
		return l.runSequential(op, src, ts, recovery)
	}
	return l.runParallel(op, cur, src, ts, recovery)
}

// batchStarted is runTools' recovery test: a call is past planned and not
// yet placed.
func batchStarted(s *OpState) bool {
	for _, c := range s.Calls {
		if c.status() == CallEffectPending || c.status() == CallOutcomeReady {
			return true
		}
	}
	return false
}

// currentTools is currentBatch: op's tools state, or nil once it moved on.
func (l *Lane) currentTools(op string) *OpState {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.view.op == nil || l.view.op.ID != op || l.view.op.State.At != LeafTools {
		return nil
	}
	return l.view.op.State.Clone()
}

// runSequential is tools.ts runSequential: place what is ready, then
// advance the first open call, within 2·calls+1 transitions. done: it
// placed the batch's last call.
func (l *Lane) runSequential(op string, src *batchSource, ts *toolSet, recovery bool) (done bool, err error) {
	for t := 0; t <= src.size*2+1; t++ {
		if done, err := l.materializeReady(op, src, recovery); done || err != nil {
			return done, err
		}
		cur := l.currentTools(op)
		if cur == nil {
			return false, nil
		}
		i, ok := firstOpenIndex(cur.Calls)
		if !ok {
			return false, l.faultWith(toolInvariant("Tool batch remained open after every call completed"))
		}
		call := cur.Calls[i]
		if call.status() == CallOutcomeReady {
			return false, l.faultWith(toolInvariant("Ready tool outcome was not materialized"))
		}
		if err := l.advanceCall(op, cur, src, call, ts, recovery); err != nil {
			return false, err
		}
	}
	return false, l.faultWith(toolInvariant("Sequential tool batch exceeded its bounded transition count"))
}

// advanceCall is one iteration of runSequential for the first open call.
func (l *Lane) advanceCall(op string, cur *OpState, src *batchSource, call PlannedCall, ts *toolSet, recovery bool) error {
	tc, err := src.toolCallFor(call)
	if err != nil {
		return l.faultWith(err)
	}
	if cur.Control.CancelRequested {
		if call.status() == CallPlanned {
			return l.publishOutcome(op, call, l.abortedOutcome(tc), recovery)
		}
		cp, err := l.readCheckpoint(op, call)
		if err != nil {
			return err
		}
		return l.publishOutcome(op, call, l.interruptedOutcome(tc, cp), recovery)
	}
	if ts == nil {
		return l.faultWith(toolInvariant("Running tool batch is missing execution context"))
	}
	if call.status() == CallPlanned {
		return l.startCall(op, src, call, tc, ts, recovery)
	}
	return l.recoverCall(op, src.turnID, call, tc, ts)
}

// startCall is startToolInvocation: an immediate outcome (truncated,
// unavailable) or intent, admission, run and outcome.
func (l *Lane) startCall(op string, src *batchSource, call PlannedCall, tc pi.ToolCall, ts *toolSet, recovery bool) error {
	if src.assistant.StopReason == pi.StopLength {
		return l.publishOutcome(op, call, l.truncatedOutcome(tc), recovery)
	}
	t, ok := ts.find(tc.Name)
	if !ok {
		return l.publishOutcome(op, call, l.unavailableOutcome(tc), recovery)
	}
	args := tc.Arguments // validateToolArguments against a schema that accepts anything
	if args.IsUndefined() {
		// pi-ai's validation would refuse it with a schema's message; without
		// a schema there is nothing to store: refuse it, naming the call
		return l.faultWith(fmt.Errorf("lane: tool call %s (%s) of operation %s has no arguments", tc.ID, tc.Name, op))
	}
	cancelled, err := l.publishIntent(op, call, tc, args, t.replay(), recovery)
	if err != nil {
		return err
	}
	if cancelled {
		return l.publishOutcome(op, call, l.abortedOutcome(tc), recovery)
	}
	out, err := l.perform(op, t, tc, args, recovery)
	if err != nil {
		return err
	}
	pending := PlannedCall{Status: CallEffectPending, SourceIndex: call.SourceIndex, ResultEntryID: call.ResultEntryID, Replay: t.replay()}
	return l.publishOutcome(op, pending, out, recovery)
}

// recoverCall is recoverToolInvocation (not cancelled): a "safe" call of a
// "safe" tool runs again after its checkpoint is cleared; any other
// orphaned call settles as interrupted.
func (l *Lane) recoverCall(op, turnID string, call PlannedCall, tc pi.ToolCall, ts *toolSet) error {
	if t, ok := ts.byName[tc.Name]; ok && call.Replay == "safe" && t.replay() == "safe" {
		args, err := l.clearReplay(op, turnID, call, tc)
		if err != nil {
			return err
		}
		out, err := l.perform(op, t, tc, args, true)
		if err != nil {
			return err
		}
		return l.publishOutcome(op, call, out, true)
	}
	cp, err := l.readCheckpoint(op, call)
	if err != nil {
		return err
	}
	return l.publishOutcome(op, call, l.interruptedOutcome(tc, cp), true)
}
