package lane

import (
	"errors"
	"fmt"

	"github.com/frameproof/frameproof/impl/pi"
	"github.com/frameproof/frameproof/impl/store"
)

// StepKind says what one Step did.
type StepKind int

// Step outcomes.
const (
	StepIdle     StepKind = iota // no current operation
	StepProgress                 // the state advanced (or a stale step was skipped)
	StepWaiting                  // nothing to do without outside help (Reason)
	StepSettled                  // the operation terminated (Status)
)

func (k StepKind) String() string {
	return [...]string{"idle", "progress", "waiting", "settled"}[k]
}

// StepResult is one Step's outcome.
type StepResult struct {
	Kind   StepKind
	Reason string // waiting: "deferred" | "retry" | "tools" | "summary"
	Status string // settled: result status
}

// StepOptions are one drive pass's local policy.
type StepOptions struct {
	// DeferredPermit allows one deferred poll (or orphan-poll replacement).
	DeferredPermit bool
	// WaitForRetry sleeps (env.Clock) until a retry wait's notBefore.
	WaitForRetry bool
}

// RunOptions start an assistant run.
type RunOptions struct {
	UserText      string
	Configuration Configuration
	RetryPolicy   RetryPolicy
	StreamOptions pi.JSONValue
	Settings      pi.JSONValue
}

// StartRun commits a user entry and a new operation at `starting`, as pi's
// acceptRun (runtime/lane.ts) does; the drive's next two steps move it to
// the initial checkpoint and to assistant.ready (checkpoint.go). Its
// configuration, retry policy and stream options become the lane's
// generation configuration, which that boundary reads. It returns the
// operation id.
func (l *Lane) StartRun(opts RunOptions) (string, error) {
	if err := l.usable(); err != nil {
		return "", err
	}
	opID, userID := l.cfg.IDs.NewID(), l.cfg.IDs.NewID()
	now := l.now()
	user := &pi.UserMessage{Text: opts.UserText, Timestamp: now}
	res, _, err := l.command("start-run", func(cur view) (plan, error) {
		if cur.op != nil {
			return plan{}, &rejectError{fmt.Errorf("lane: start run: operation %s is still current", cur.op.ID)}
		}
		userJSON, err := pi.Marshal(user)
		if err != nil {
			return plan{}, err
		}
		state := &OpState{At: LeafStarting, Settings: opts.Settings}
		meta := OpMeta{OperationID: opID, Lane: l.cfg.Name, SourceTipID: cur.tip, StartedAt: now,
			Kind: "run", PromptEntryIDs: []string{userID}}
		ls := LaneState{CurrentOperationID: strp(opID), LastOperationID: cur.laneState.LastOperationID, Inbox: cur.laneState.Inbox}
		tipJSON, _ := pi.Marshal(pi.StringValue(userID))
		writes := []store.Write{
			store.InsertEntry(store.Entry{ID: userID, ParentID: cur.tip, Raw: messageEntryRaw(userID, cur.tip, userJSON)}),
			store.SetValueRaw(BranchTipAddr(l.cfg.Name), tipJSON),
			store.SetValueRaw(OpMetaAddr(opID), meta.raw()),
			store.SetValueRaw(OpStateAddr(opID), MarshalState(state)),
			store.SetValueRaw(LaneStateAddr(l.cfg.Name), ls.raw()),
		}
		next := view{laneState: ls, tip: strp(userID), op: &Operation{ID: opID, Meta: meta, State: state}}
		gen := &GenerationConfig{Configuration: opts.Configuration, StreamOptions: opts.StreamOptions, RetryPolicy: opts.RetryPolicy}
		return plan{commit: true, writes: writes, next: next, applied: func() { l.gen = gen }}, nil
	})
	if err != nil {
		return "", err
	}
	// runtime/lane.ts acceptRun: run_start, then the prompt entry's
	// lifecycle (transcript.ts committedEntryEvents: message_start,
	// message_end, entry_added, the last without a runId)
	l.emit(Event{Type: EvRunStart, RunID: opID, StartedAt: now})
	l.emit(Event{Type: EvMessageStart, RunID: opID, Prompt: user})
	l.emit(Event{Type: EvMessageEnd, RunID: opID, Prompt: user, EntryID: userID})
	l.emit(Event{Type: EvEntryAdded, Prompt: user, EntryID: userID, Seq: res.Seqs[0]})
	return opID, nil
}

// Step advances the current operation by one leaf, dispatching as pi's drive
// loop does: cancel_requested → reconcile; assistant.effect_pending at
// dispatch is an orphan → recovery; deferred leaves poll only with a permit;
// a tools leaf runs its whole batch when Config.Tools is set, and waits
// ("tools") otherwise.
// It claims the lane's single drive (claim.go): a Step or Drive called while
// another drives the same operation returns that one's result.
func (l *Lane) Step(opts StepOptions) (StepResult, error) {
	return l.claimed(func() (StepResult, error) { return l.step(opts) })
}

func (l *Lane) step(opts StepOptions) (StepResult, error) {
	if err := l.usable(); err != nil {
		return StepResult{}, err
	}
	l.mu.Lock()
	cur := l.view.clone()
	l.mu.Unlock()
	if cur.op == nil {
		return StepResult{Kind: StepIdle}, nil
	}
	op, s := cur.op.ID, cur.op.State
	if s.Control.CancelRequested {
		return l.reconcile(op, s)
	}
	switch s.At {
	case LeafStarting:
		return l.startRun(op, cur.op.Meta)
	case LeafAssistantReady:
		return l.runGeneration(op, s)
	case LeafAssistantRetryWait:
		return l.runRetryWait(op, s, opts)
	case LeafAssistantEffectPending:
		return l.recoverEffect(op, s, false)
	case LeafDeferredSuspended, LeafDeferredEffectPending:
		return l.pollDeferred(op, s, opts.DeferredPermit)
	case LeafCheckpoint:
		if s.Continuation.Kind == ContinueNeedAssistant {
			return l.runCheckpoint(op)
		}
		return l.terminate("finish", "completed", nil, op)
	case LeafTools:
		if l.cfg.Tools == nil {
			return StepResult{Kind: StepWaiting, Reason: "tools"}, nil
		}
		return l.runTools(op, s)
	case LeafSummaryDeciding:
		return StepResult{Kind: StepWaiting, Reason: "summary"}, nil
	}
	return StepResult{}, l.faultWith(fmt.Errorf("lane: drive: unsupported leaf %q", s.At))
}

// Drive steps until the lane is idle, waiting or settled, holding the
// lane's single drive claim throughout (pi's driveOperation loop).
func (l *Lane) Drive(opts StepOptions) (StepResult, error) {
	return l.claimed(func() (StepResult, error) {
		for {
			r, err := l.step(opts)
			if err != nil || r.Kind != StepProgress {
				return r, err
			}
		}
	})
}

// runGeneration publishes the intent (reserving response and usage ids),
// streams, and settles.
func (l *Lane) runGeneration(op string, ready *OpState) (StepResult, error) {
	intent := ready.scope(LeafAssistantEffectPending)
	intent.Gen, intent.Attempt = ready.Gen, ready.NextAttempt
	intent.ResponseEntryID, intent.UsageID = l.cfg.IDs.NewID(), l.cfg.IDs.NewID()
	intent.IntendedOutputLimit, intent.ContextWindow = l.cfg.Limits.MaxTokens, l.cfg.Limits.ContextWindow
	// The guard's ID and leaf tests are each enough while this step holds
	// the drive claim (claim.go): another operation is never at
	// assistant.ready here, since a run starts at "starting" and only a
	// step, which the claim keeps out until this one ends, moves it on; and
	// this operation leaves assistant.ready only by this step, a cancel or
	// a finalization, which the other tests catch.
	_, committed, err := l.command("intent", func(cur view) (plan, error) {
		if cur.op == nil || cur.op.ID != op || cur.op.State.At != LeafAssistantReady || cur.op.State.Control.CancelRequested {
			return plan{}, nil // continueOperation: cancel_requested or moved on
		}
		next := cur.clone()
		st := intent.Clone()
		st.Control, st.Settings, st.LatestAssistantEntryID = cur.op.State.Control, cur.op.State.Settings, cur.op.State.LatestAssistantEntryID
		next.op.State = st
		intent = st
		return plan{commit: true, writes: []store.Write{store.SetValueRaw(OpStateAddr(op), MarshalState(st))}, next: next}, nil
	})
	if err != nil || !committed {
		return StepResult{Kind: StepProgress}, err
	}
	if intent.Attempt == 1 {
		l.emit(Event{Type: EvTurnStart, RunID: op, TurnID: intent.Gen.StepID})
	}
	// generation.ts performGeneration: drive.gate.admit(() => streamSimple(…))
	signal, aborting := l.admit(op)
	if aborting != nil {
		return awaitCancellation(aborting)
	}
	req := Request{OperationID: op, ResponseEntryID: intent.ResponseEntryID, Model: intent.Gen.Configuration.Model,
		Attempt: intent.Attempt, Abort: signal}
	l.setLive(op, intent.ResponseEntryID, nil)
	msg, err := l.respond(req, false)
	if err != nil {
		l.dropLive(intent.ResponseEntryID)
		return StepResult{}, err
	}
	r, err := l.settle(op, intent, msg, false, false, nil)
	l.dropLive(intent.ResponseEntryID)
	return r, err
}

// runRetryWait moves assistant.retry_wait → assistant.ready once notBefore
// has passed. With WaitForRetry it waits as generation.ts runRetryWait
// does: drive.gate.admit(() => waitUntil(notBefore, signal)), so a cancel
// that began earlier skips the wait and one signalled during it ends it;
// either way the step awaits the cancellation and the next step reconciles.
func (l *Lane) runRetryWait(op string, s *OpState, opts StepOptions) (StepResult, error) {
	if l.now() < s.NotBefore {
		if !opts.WaitForRetry {
			return StepResult{Kind: StepWaiting, Reason: "retry"}, nil
		}
		if _, aborting := l.admit(op); aborting != nil {
			return awaitCancellation(aborting)
		}
		if err := l.waitUntil(op, s.NotBefore); err != nil {
			if !errors.Is(err, errAbortRequested) {
				return StepResult{}, err
			}
			_, aborting := l.admit(op)
			return awaitCancellation(aborting)
		}
	}
	_, committed, err := l.command("retry-ready", func(cur view) (plan, error) {
		if cur.op == nil || cur.op.ID != op || cur.op.State.At != LeafAssistantRetryWait || cur.op.State.Control.CancelRequested {
			return plan{}, nil
		}
		next := cur.clone()
		st := cur.op.State.scope(LeafAssistantReady)
		st.Gen, st.NextAttempt = cur.op.State.Gen, cur.op.State.NextAttempt
		next.op.State = st
		return plan{commit: true, writes: []store.Write{store.SetValueRaw(OpStateAddr(op), MarshalState(st))}, next: next}, nil
	})
	if err == nil && committed {
		l.emit(Event{Type: EvRetryStart, RunID: op, TurnID: s.Gen.StepID})
	}
	return StepResult{Kind: StepProgress}, err
}
