package lane

import (
	"errors"

	"github.com/frameproof/frameproof/impl/pi"
	"github.com/frameproof/frameproof/impl/store"
)

// errStale is returned when the intent a settlement targets is no longer
// the current state (e.g. finalized externally meanwhile).
var errStale = errors.New("lane: settlement target is no longer current")

// errNoOperationState is what pi's settleOperation throws when no operation
// is current (runtime/lane.ts: state.operation! is null, reading its state
// fails); the command faults the harness.
var errNoOperationState = errors.New("Cannot read properties of null (reading 'state')")

// staleTarget decides a settlement or terminal whose operation is no longer
// current: pi's crash (a harness fault) when none is current, unless
// Config.SkipStaleSettlement asks for frameproof's harmless "stale" step.
func (l *Lane) staleTarget(cur view) error {
	if err := l.lostOperation(cur); err != nil {
		return err
	}
	return &rejectError{errStale}
}

// lostOperation is the first thing every drive command does on the line
// (runtime/lane.ts continueOperation → settleOperation reads
// state.operation!.state): with no current operation, because an external
// Finalize removed it after the step read it, pi's read throws and the
// command faults the harness. Config.SkipStaleSettlement keeps frameproof's
// handling instead: nil, and the caller declines (or skips) the command.
func (l *Lane) lostOperation(cur view) error {
	if cur.op == nil && !l.cfg.SkipStaleSettlement {
		return errNoOperationState
	}
	return nil
}

func sameEffect(v view, op string, eff *OpState) bool {
	return v.op != nil && v.op.ID == op && v.op.State.At == eff.At && v.op.State.ResponseEntryID == eff.ResponseEntryID
}

// settle classifies response and commits pi's settlement TX (publishResponse):
// entry R, usage U, branch tip, deleteList(frames) | terminal cleanup,
// [overflow: pi.op.preparation], op state | (result, lane state). An
// overflow's compaction preparation is computed before the TX (overflow.go). Then entry_added and usage are emitted.
// recovery selects pi's recovery classification; synthetic marks a response
// the harness built rather than a provider stream (see Event.Synthetic);
// shape, when set, rewrites the committed message's JSON for a synthetic
// whose shape is recovery.ts's, not pi's AssistantMessage marshalling: the
// literal's key order without a committed partial
// (errorMessageBeforeTimestamp), or the spread of an untyped one
// (untypedPartial), which the settlement's events then carry as Event.Raw.
func (l *Lane) settle(op string, intent *OpState, response *pi.AssistantMessage, recovery, synthetic bool, shape *reshape) (StepResult, error) {
	var disp Disposition
	var raw pi.JSONValue // the committed message when the typed one cannot hold it
	respID, usageID := intent.ResponseEntryID, intent.UsageID
	if recovery && l.cfg.bugs.on(bugRecoveryMintsNewIDs) {
		respID, usageID = l.cfg.IDs.NewID(), l.cfg.IDs.NewID()
	}
	if l.cfg.bugs.on(bugEmitEntryBeforeCommit) {
		l.emit(Event{Type: EvEntryAdded, RunID: op, Recovery: recovery, Synthetic: synthetic, EntryID: respID})
	}
	var prep *compactionPrep
	patterns := patternsOf(l.cfg.ErrorPatterns)
	if isOverflow(patterns, intent, response) {
		p, err := l.prepareOverflow(op, intent)
		if err != nil {
			return StepResult{}, l.faultWith(err)
		}
		prep = p
	}
	var finished *ResultRecord
	_, committed, err := l.command(CmdSettle, thenEmit(func(cur view) (plan, error) {
		if !sameEffect(cur, op, intent) {
			return plan{}, l.staleTarget(cur)
		}
		current := cur.op.State
		d, err := classify(classifyInput{current: current, response: response, recovery: recovery,
			now: l.now(), delayCap: l.cfg.DefaultMaxAgentDelayMs, patterns: patterns, newID: l.cfg.IDs.NewID, cancelLosesBug: l.cfg.bugs.on(bugCancelLosesToComplete),
			overflowPrep: prep})
		if err != nil {
			return plan{}, err
		}
		disp = d
		msgJSON, err := pi.Marshal(d.Committed)
		if err == nil && shape != nil {
			msgJSON, err = shape.rewrite(msgJSON)
		}
		if err == nil && shape != nil && shape.untyped {
			raw, err = pi.ParseJSON(string(msgJSON))
		}
		if err != nil {
			return plan{}, err
		}
		tipJSON, _ := pi.Marshal(pi.StringValue(respID))
		writes := []store.Write{
			store.InsertEntry(store.Entry{ID: respID, ParentID: cur.tip, Raw: messageEntryRaw(respID, cur.tip, msgJSON)}),
			store.InsertUsage(store.UsageRow{ID: usageID, Raw: usageRowRaw(usageID, d.Committed.Usage, respID)}),
			store.SetValueRaw(BranchTipAddr(l.cfg.Name), tipJSON),
		}
		next := cur.clone()
		next.tip = strp(respID)
		if d.Failure != nil {
			rec := ResultRecord{OperationID: op, Kind: cur.op.Meta.Kind, Status: "failed", Error: d.Failure,
				FromTipID: cur.op.Meta.SourceTipID, TipID: strp(respID), StartedAt: cur.op.Meta.StartedAt, EndedAt: l.now()}
			fin, ls, err := l.finishWrites(cur, rec)
			if err != nil {
				return plan{}, err
			}
			writes = append(writes, fin...)
			next.op, next.laneState = nil, ls
			finished = &rec
		} else {
			if !l.cfg.bugs.on(bugSettleWithoutDelete) {
				writes = append(writes, store.DeleteListRaw(FramesAddr(op, respID)))
			}
			if d.Preparation != nil { // only an overflow's summary.deciding carries one
				writes = append(writes, store.SetValueRaw(PreparationAddr(op, d.Preparation.taskID), d.Preparation.value.AppendJSON(nil)))
			}
			writes = append(writes, store.SetValueRaw(OpStateAddr(op), MarshalState(d.Next)))
			next.op.State = d.Next
		}
		return plan{commit: true, writes: writes, next: next, applied: func() {
			if !l.cfg.bugs.on(bugSnapshotShowsDeadLivePartial) && l.live != nil && l.live.responseEntryID == intent.ResponseEntryID {
				l.live = nil
			}
		}}, nil
	}, func(res store.CommitResult) []Event {
		return l.settleEvents(op, respID, usageID, intent, disp, raw, recovery, synthetic, finished, res)
	}))
	if err != nil {
		if errors.Is(err, errStale) {
			return StepResult{Kind: StepProgress, Reason: "stale"}, nil
		}
		return StepResult{}, err
	}
	if !committed {
		return StepResult{Kind: StepProgress}, nil
	}
	if finished != nil {
		return StepResult{Kind: StepSettled, Status: finished.Status}, nil
	}
	return StepResult{Kind: StepProgress}, nil
}

// settleEvents are publishResponse's batch (runtime/drive/response.ts):
// entry_added, usage, the settlement's own events, then run_end when the
// settlement finished the run.
func (l *Lane) settleEvents(op, respID, usageID string, intent *OpState, d Disposition, raw pi.JSONValue, recovery, synthetic bool, finished *ResultRecord, res store.CommitResult) []Event {
	var evs []Event
	if !l.cfg.bugs.on(bugEmitEntryBeforeCommit) {
		evs = append(evs, carrying(Event{Type: EvEntryAdded, RunID: op, Recovery: recovery, Synthetic: synthetic, EntryID: respID, Seq: res.Seqs[0]}, d.Committed, raw))
	}
	u := d.Committed.Usage
	// pi's publishResponse (runtime/drive/response.ts) spreads the
	// recovery option into entry_added only: its usage event is never
	// recovery-tagged.
	evs = append(evs, Event{Type: EvUsage, RunID: op, Synthetic: synthetic, UsageID: usageID, Seq: res.Seqs[1], Usage: &u, EntryID: respID})
	evs = append(evs, settlementEvents(op, intent, d, raw, recovery, float64(res.Timestamp), l.cfg.DefaultMaxAgentDelayMs)...)
	if finished != nil {
		evs = append(evs, runEndEvent(finished))
	}
	return evs
}

// runEndEvent is pi's run_end for the result record rec.
func runEndEvent(rec *ResultRecord) Event {
	return Event{Type: EvRunEnd, RunID: rec.OperationID, Status: rec.Status, Error: rec.Error,
		FromTipID: rec.FromTipID, TipID: rec.TipID, EndedAt: rec.EndedAt}
}

// settlementEvents are the rest of publishResponse's batch after
// entry_added and usage, before run_end; raw, when set, is the committed
// message the typed d.Committed stands in for; delayCap is
// Config.DefaultMaxAgentDelayMs, the cap retry_scheduled's delayMs shares
// with the retry wait's notBefore.
func settlementEvents(op string, intent *OpState, d Disposition, raw pi.JSONValue, recovery bool, at float64, delayCap *float64) []Event {
	var evs []Event
	emit := func(ev Event) { evs = append(evs, ev) }
	var next Leaf
	if d.Next != nil {
		next = d.Next.At
	}
	if intent.At == LeafAssistantEffectPending {
		turnID := intent.Gen.StepID
		if !recovery && intent.Attempt > 1 && next != LeafAssistantRetryWait {
			ev := Event{Type: EvRetryEnd, RunID: op, TurnID: turnID, Message: d.Committed, Attempt: intent.Attempt}
			ev.Success = d.Committed.StopReason != pi.StopError && d.Committed.StopReason != pi.StopAborted
			if !ev.Success {
				final := "Assistant request ended with " + string(d.Committed.StopReason)
				if d.Committed.ErrorMessage != nil {
					final = *d.Committed.ErrorMessage
				}
				ev.FinalError = &final
			}
			emit(ev)
		}
		if !recovery && next == LeafAssistantRetryWait {
			emit(Event{Type: EvRetryScheduled, RunID: op, TurnID: turnID, Attempt: d.Next.NextAttempt,
				MaxAttempts: d.Next.Gen.RetryPolicy.MaxAttempts, DelayMs: RetryDelay(cappedPolicy(intent.Gen.RetryPolicy, delayCap), intent.Attempt),
				NotBefore: d.Next.NotBefore, ErrorMessage: d.Next.ErrorMessage})
		}
		if !recovery && next != LeafTools && next != LeafAssistantRetryWait {
			emit(Event{Type: EvTurnEnd, RunID: op, TurnID: turnID, Message: d.Committed})
		}
		if next == LeafSummaryDeciding {
			emit(Event{Type: EvCompactionStart, RunID: op, Reason: "overflow", StartedAt: at})
		}
	} else if next != LeafTools {
		emit(carrying(Event{Type: EvTurnEnd, RunID: op, Recovery: recovery, TurnID: intent.StepID + ":poll:" + itoa(intent.Poll)}, d.Committed, raw))
	}
	if (intent.At == LeafDeferredEffectPending || !recovery) && next == LeafDeferredSuspended && d.Committed.Deferred != nil {
		emit(Event{Type: EvRunSuspend, RunID: op, Recovery: recovery && intent.At == LeafDeferredEffectPending})
	}
	return evs
}

// carrying sets ev's message: m, or raw when the typed vocabulary cannot
// hold the message pi carries (Event.Raw).
func carrying(ev Event, m *pi.AssistantMessage, raw pi.JSONValue) Event {
	if raw.IsUndefined() {
		ev.Message = m
	} else {
		ev.Raw = raw
	}
	return ev
}
