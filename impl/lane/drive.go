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
// the initial checkpoint and to assistant.ready (checkpoint.go). Before
// that the lane is acquired (laneconfig.go): a lane without
// pi.lane.config gets one, seeded with opts.Configuration (or
// Config.Generation's when it names no model), and a configuration
// different from the stored one is committed first, as pi's
// setConfiguration. The boundary reads the configuration from
// pi.lane.config; opts' retry policy and stream options become the
// process's, as pi's harness options. It returns the operation id.
func (l *Lane) StartRun(opts RunOptions) (string, error) {
	if err := l.usable(); err != nil {
		return "", err
	}
	if err := l.acquire(l.seedConfiguration(opts.Configuration), opts.Configuration.Model != (ModelRef{})); err != nil {
		return "", err
	}
	opID, userID := l.cfg.IDs.NewID(), l.cfg.IDs.NewID()
	now := l.now()
	user := &pi.UserMessage{Text: opts.UserText, Timestamp: now}
	var accepted acceptedInput
	_, _, err := l.command(CmdStartRun, thenEmit(func(cur view) (plan, error) {
		if cur.op != nil {
			return plan{}, &rejectError{fmt.Errorf("lane: start run: operation %s is still current", cur.op.ID)}
		}
		userJSON, err := pi.Marshal(user)
		if err != nil {
			return plan{}, err
		}
		// acceptRun captures queued input (selectAcceptedInbox) before the
		// prompt: its entries chain from the tip, the prompt after them
		if accepted, err = l.acceptInbox(cur, opts.Settings); err != nil {
			return plan{}, err
		}
		inserts, deletes, parent := accepted.chain(cur.tip)
		state := &OpState{At: LeafStarting, Settings: opts.Settings}
		meta := OpMeta{OperationID: opID, Lane: l.cfg.Name, SourceTipID: cur.tip, StartedAt: now,
			Kind: "run", PromptEntryIDs: []string{userID}}
		ls := LaneState{CurrentOperationID: strp(opID), LastOperationID: cur.laneState.LastOperationID, Inbox: accepted.inbox}
		tipJSON, _ := pi.Marshal(pi.StringValue(userID))
		writes := append(inserts, store.InsertEntry(store.Entry{ID: userID, ParentID: parent, Raw: messageEntryRaw(userID, parent, userJSON)}))
		writes = append(writes, deletes...)
		writes = append(writes,
			store.SetValueRaw(BranchTipAddr(l.cfg.Name), tipJSON),
			store.SetValueRaw(OpMetaAddr(opID), meta.raw()),
			store.SetValueRaw(OpStateAddr(opID), MarshalState(state)),
			store.SetValueRaw(LaneStateAddr(l.cfg.Name), ls.raw()),
		)
		next := view{laneState: ls, tip: strp(userID), tipStored: true, config: cur.config, op: &Operation{ID: opID, Meta: meta, State: state}}
		gen := &GenerationConfig{StreamOptions: opts.StreamOptions, RetryPolicy: opts.RetryPolicy}
		return plan{commit: true, writes: writes, next: next, applied: func() { l.gen = gen }}, nil
	}, func(res store.CommitResult) []Event {
		// runtime/lane.ts acceptRun: run_start, then each entry's lifecycle
		// (transcript.ts committedEntryEvents: message_start, message_end,
		// entry_added, the last without a runId): the captured input's, the
		// prompt's; then queue_update when input was captured
		evs := []Event{{Type: EvRunStart, RunID: opID, StartedAt: now}}
		evs = append(evs, placedInputEvents(opID, accepted.placed, res.Seqs, pi.JSONValue{}, false)...)
		n := len(accepted.placed)
		evs = append(evs, Event{Type: EvMessageStart, RunID: opID, Prompt: user},
			Event{Type: EvMessageEnd, RunID: opID, Prompt: user, EntryID: userID},
			Event{Type: EvEntryAdded, Prompt: user, EntryID: userID, Seq: res.Seqs[n]})
		if n > 0 {
			evs = append(evs, Event{Type: EvQueueUpdate, Queues: accepted.queues})
		}
		return evs
	}))
	if err != nil {
		return "", err
	}
	return opID, nil
}

// Step advances the current operation by one leaf, dispatching as pi's drive
// loop does: cancel_requested → reconcile; assistant.effect_pending at
// dispatch is an orphan → recovery; deferred leaves poll only with a permit;
// a tools leaf runs its whole batch when Config.Tools is set, and waits
// ("tools") otherwise.
// It claims the lane's single drive (claim.go): a Step or Drive called while
// another drives the same operation returns that one's result.
//
// pi has no single-step API: Step is one pass of driveOperation's loop
// (runtime/drive.ts), the procedure without the loop's currentOperation
// check after it. That check belongs to the loop, and Drive makes it
// after every step (lostDrive). Step deliberately does not: a caller that
// steps again is the loop, and its next Step reads the operation at
// dispatch (idle, or the next operation) as pi's next check would; and a
// check at Step's return would fault only when an external Finalize
// commits in the instant between the step's last command and its return,
// an order no caller can choose and the lockstep model would have to
// guess. Every command of the step still meets pi's lost-operation fault
// (lostOperation).
func (l *Lane) Step(opts StepOptions) (StepResult, error) {
	return l.claimed(func() (StepResult, error) { return l.step(&opts) })
}

// step is one pass of the drive loop under opts, the drive's own options:
// a poll intent it commits spends opts.DeferredPermit (pollDeferred).
func (l *Lane) step(opts *StepOptions) (StepResult, error) {
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
		return l.runRetryWait(op, s, *opts)
	case LeafAssistantEffectPending:
		return l.recoverEffect(op, s, false)
	case LeafDeferredSuspended, LeafDeferredEffectPending:
		return l.pollDeferred(op, s, &opts.DeferredPermit)
	case LeafCheckpoint:
		if s.Continuation.Kind == ContinueNeedAssistant {
			return l.runCheckpoint(op, s)
		}
		return l.finishBoundary(op, s)
	case LeafTools:
		if l.cfg.HoldToolBatches {
			return StepResult{Kind: StepWaiting, Reason: "tools"}, nil
		}
		return l.runTools(op, s)
	case LeafSummaryDeciding:
		return StepResult{Kind: StepWaiting, Reason: "summary"}, nil
	}
	return StepResult{}, l.faultWith(fmt.Errorf("lane: drive: unsupported leaf %q", s.At))
}

// Drive steps until the lane is idle, waiting or settled, holding the
// lane's single drive claim throughout (pi's driveOperation loop). Its
// deferred permit allows one poll for the whole drive, as pi's Drive
// carries one (runtime/types.ts Drive: deferredPermits) that the poll
// intent spends: a poll that answers deferred again leaves the drive
// waiting.
func (l *Lane) Drive(opts StepOptions) (StepResult, error) {
	return l.driveOperation("", opts)
}

// driveOperation is Drive of operation op ("": the current one), pi's
// Lane.drive({operationId}): see claimedFor.
func (l *Lane) driveOperation(op string, opts StepOptions) (StepResult, error) {
	return l.claimedFor(op, func() (StepResult, error) {
		driving := l.currentID()
		for {
			r, err := l.step(&opts)
			if err != nil || (r.Kind != StepProgress && r.Kind != StepIdle) {
				return r, err
			}
			if err := l.lostDrive(driving); err != nil || r.Kind == StepIdle {
				return r, err
			}
		}
	})
}

// lostDrive is driveOperation's currentOperation (runtime/drive.ts), which
// the loop calls before and after every procedure: once an external
// Finalize removed the operation the drive was driving, pi throws and the
// harness faults. Config.SkipStaleSettlement keeps frameproof's handling:
// the drive goes on with whatever is current, or ends idle.
func (l *Lane) lostDrive(driving string) error {
	if driving == "" || l.cfg.SkipStaleSettlement || l.currentID() == driving {
		return nil
	}
	return l.faultWith(&invariantError{"Drive " + driving + " has no matching current operation"})
}

// currentID is the current operation's id ("" when idle).
func (l *Lane) currentID() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.view.op == nil {
		return ""
	}
	return l.view.op.ID
}

// runGeneration publishes the intent (reserving response and usage ids),
// streams, and settles.
func (l *Lane) runGeneration(op string, ready *OpState) (StepResult, error) {
	// generation.ts runGeneration: prepareGeneration's configuration check
	// fails the run before its intent (availability.go)
	if opErr := l.unavailable(ready.Gen); opErr != nil {
		return l.failConfiguration(op, ready, opErr)
	}
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
	_, committed, err := l.command(CmdIntent, thenEmit(func(cur view) (plan, error) {
		if cur.op == nil {
			return plan{}, l.lostOperation(cur)
		}
		if cur.op.ID != op || cur.op.State.At != LeafAssistantReady || cur.op.State.Control.CancelRequested {
			return plan{}, nil // continueOperation: cancel_requested or moved on
		}
		next := cur.clone()
		st := intent.Clone()
		st.Control, st.Settings, st.LatestAssistantEntryID = cur.op.State.Control, cur.op.State.Settings, cur.op.State.LatestAssistantEntryID
		next.op.State = st
		intent = st
		return plan{commit: true, writes: []store.Write{store.SetValueRaw(OpStateAddr(op), MarshalState(st))}, next: next}, nil
	}, func(store.CommitResult) []Event {
		if intent.Attempt != 1 {
			return nil
		}
		return []Event{{Type: EvTurnStart, RunID: op, TurnID: intent.Gen.StepID}}
	}))
	if err != nil || !committed {
		return StepResult{Kind: StepProgress}, err
	}
	// generation.ts performGeneration: drive.gate.admit(() => streamSimple(…))
	signal, aborting, err := l.admitRequest(op)
	if err != nil {
		return StepResult{}, err
	}
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
	_, _, err := l.command(CmdRetryReady, thenEmit(func(cur view) (plan, error) {
		if cur.op == nil {
			return plan{}, l.lostOperation(cur)
		}
		if cur.op.ID != op || cur.op.State.At != LeafAssistantRetryWait || cur.op.State.Control.CancelRequested {
			return plan{}, nil
		}
		next := cur.clone()
		st := cur.op.State.scope(LeafAssistantReady)
		st.Gen, st.NextAttempt = cur.op.State.Gen, cur.op.State.NextAttempt
		next.op.State = st
		return plan{commit: true, writes: []store.Write{store.SetValueRaw(OpStateAddr(op), MarshalState(st))}, next: next}, nil
	}, func(store.CommitResult) []Event {
		return []Event{{Type: EvRetryStart, RunID: op, TurnID: s.Gen.StepID, Attempt: s.NextAttempt}}
	}))
	return StepResult{Kind: StepProgress}, err
}
