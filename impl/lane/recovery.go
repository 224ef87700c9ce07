package lane

import (
	"fmt"

	"github.com/frameproof/frameproof/impl/pi"
	"github.com/frameproof/frameproof/impl/store"
)

// DiagnosticFrameBudget is the diagnostic type added to a synthetic response
// whose frame list exceeded the frame budget (frameproof's own: pi has no
// budget).
const DiagnosticFrameBudget = "frame_budget_exceeded"

// readFrames pages the exact frame list ascending, Config.FramePageSize per page
// with an exclusive seq cursor (pi's readAssistantFrames), and with a
// positive budget stops after budget frames; truncated reports that more
// frames existed than the budget allowed. Frames are returned as the JSON
// that was stored, unchecked: pi-ai's reducer reads them so (see
// reduceStored).
func (l *Lane) readFrames(op, resp string) (out []pi.JSONValue, truncated bool, err error) {
	addr, budget, size := FramesAddr(op, resp), l.cfg.FrameBudget, l.cfg.FramePageSize
	if size <= 0 {
		size = FramePageSize
	}
	var cursor *int64
	for {
		page, err := l.cfg.Storage.ReadList(addr, store.ReadOptions{Cursor: cursor, Order: store.Asc, Limit: size})
		if err != nil {
			return nil, false, fmt.Errorf("lane: read frames %s: %w", addr.Key, err)
		}
		for _, e := range page {
			if budget > 0 && len(out) == budget {
				return out, true, nil
			}
			f, err := pi.ParseJSON(string(e.Value))
			if err != nil {
				return nil, false, fmt.Errorf("lane: frame list %s: element seq %d: %w", addr.Key, e.Seq, err)
			}
			out = append(out, f)
		}
		if len(page) < size || l.cfg.bugs.on(bugFramesFirstPageOnly) {
			return out, false, nil
		}
		seq := page[len(page)-1].Seq
		cursor = &seq
	}
}

// interrupted is recovery.ts's interruptedAssistantMessage.
func interrupted(model ModelRef, partial *pi.AssistantMessage, now float64) *pi.AssistantMessage {
	var m *pi.AssistantMessage
	if partial == nil {
		m = &pi.AssistantMessage{Content: []pi.Content{}, API: "unknown", Provider: model.Provider, Model: model.ModelID, Timestamp: now}
	} else {
		m = partial.Clone()
	}
	m.Usage, m.StopReason, m.ErrorMessage = ZeroUsage(), pi.StopError, strp(InterruptedWarning)
	return m
}

// errorMessageBeforeTimestamp re-orders a marshalled message's keys the way
// recovery.ts's interruptedAssistantMessage literal builds the message
// without a committed partial: {role, content, api, provider, model, usage,
// stopReason, errorMessage, timestamp} (normalizeAborted's spread keeps that
// order). pi's AssistantMessage marshalling puts timestamp first.
func errorMessageBeforeTimestamp(raw []byte) ([]byte, error) {
	v, err := pi.ParseJSON(string(raw))
	if err != nil {
		return nil, fmt.Errorf("lane: synthetic message: %w", err)
	}
	if v.Kind() != pi.Object {
		return nil, fmt.Errorf("lane: synthetic message is not a JSON object: %s", raw)
	}
	in := v.ObjectValue()
	errMsg, hasErr := in.Get("errorMessage")
	out := pi.NewObject()
	for _, k := range in.Keys() {
		if k == "errorMessage" {
			continue
		}
		if k == "timestamp" && hasErr {
			out.Set("errorMessage", errMsg)
		}
		val, _ := in.Get(k)
		out.Set(k, val)
	}
	return pi.ObjectValue(out).AppendJSON(nil), nil
}

func budgetDiagnostic(m *pi.AssistantMessage, budget int, now float64) {
	d := jobj("type", DiagnosticFrameBudget, "timestamp", now, "details", jobj("budget", budget,
		"message", "Recovery read only the first "+itoa(budget)+" committed frames; later committed frames were not reduced."))
	var arr []pi.JSONValue
	if m.Diagnostics.Kind() == pi.Array {
		arr = append(arr, m.Diagnostics.Array()...)
	}
	m.Diagnostics = pi.ArrayValue(append(arr, d))
}

// allEnded reports whether every started block of the frames has an end
// frame: "complete-looking" content.
func allEnded(fs []pi.JSONValue) bool {
	open := map[int]bool{}
	for _, v := range fs {
		f, err := pi.DecodeFrame(v, "$")
		if err != nil {
			continue
		}
		switch f.Type {
		case pi.FrameTextStart, pi.FrameThinkingStart, pi.FrameToolCallStart:
			open[f.ContentIndex.N] = true
		case pi.FrameTextEnd, pi.FrameThinkingEnd, pi.FrameToolCallEnd:
			delete(open, f.ContentIndex.N)
		}
	}
	return len(fs) > 0 && len(open) == 0
}

// recoverEffect settles an orphaned (or cancelled) effect_pending from its
// committed frame prefix under the reserved ids: no provider call, no
// after_response; recovery-tagged message_start/message_end, then the
// ordinary settlement (retry/fail for generation, aborted under cancel).
func (l *Lane) recoverEffect(op string, eff *OpState, cancelled bool) (StepResult, error) {
	var fs []pi.JSONValue
	var truncated, current bool
	_, _, err := l.command(CmdRecoveryRead, func(cur view) (plan, error) {
		if !sameEffect(cur, op, eff) || (!cancelled && cur.op.State.Control.CancelRequested) {
			return plan{}, l.lostOperation(cur)
		}
		current = true
		var err error
		fs, truncated, err = l.readFrames(op, eff.ResponseEntryID)
		return plan{}, err
	})
	if err != nil || !current {
		return StepResult{Kind: StepProgress}, err
	}
	partial, raw, err := reduceStored(fs)
	if err != nil {
		return StepResult{}, l.faultWith(fmt.Errorf("lane: reduce frames %s:%s: %w", op, eff.ResponseEntryID, err))
	}
	model := eff.modelRef()
	now := l.now()
	msg := interrupted(model, partial, now)
	if truncated {
		budgetDiagnostic(msg, l.cfg.FrameBudget, now)
	}
	if l.cfg.bugs.on(bugSyntheticNonZeroUsage) {
		msg.Usage.Output, msg.Usage.TotalTokens = 1, 1 // BUG
	}
	if l.cfg.bugs.on(bugCancelLosesToComplete) && cancelled && partial != nil && allEnded(fs) {
		msg.StopReason, msg.ErrorMessage = pi.StopStop, nil // BUG: treat complete-looking frames as done
	}
	var shape *reshape
	var rawMsg pi.JSONValue // the message pi emits when no typed one holds it
	switch {
	case !raw.IsUndefined():
		shape = &reshape{rewrite: untypedPartial(raw), untyped: true}
		if rawMsg, err = untypedMessage(shape, msg); err != nil {
			return StepResult{}, l.faultWith(err)
		}
	case partial == nil:
		shape = &reshape{rewrite: errorMessageBeforeTimestamp}
	}
	// recovery.ts hands the pair over as one emitBatch: no other batch
	// falls between message_start and message_end
	l.awaitDelivery(l.handOver([]Event{
		carrying(Event{Type: EvMessageStart, RunID: op, Recovery: true, Synthetic: true}, msg, rawMsg),
		carrying(Event{Type: EvMessageEnd, RunID: op, Recovery: true, Synthetic: true, EntryID: eff.ResponseEntryID}, msg, rawMsg),
	}))
	if l.cfg.bugs.on(bugRecoveryRunsAfterResponse) && l.cfg.AfterResponse != nil {
		if msg, err = l.cfg.AfterResponse(msg.Clone()); err != nil {
			return StepResult{}, l.faultWith(err)
		}
	}
	return l.settle(op, eff, msg, true, true, shape)
}

// untypedMessage is the untyped interrupted message as a JSON value: the
// stand-in msg's settled fields over the reduced partial.
func untypedMessage(shape *reshape, msg *pi.AssistantMessage) (pi.JSONValue, error) {
	b, err := pi.Marshal(msg)
	if err == nil {
		b, err = shape.rewrite(b)
	}
	if err != nil {
		return pi.JSONValue{}, err
	}
	return pi.ParseJSON(string(b))
}

func (s *OpState) modelRef() ModelRef {
	if s.Gen != nil {
		return s.Gen.Configuration.Model
	}
	if s.Configuration != nil {
		return s.Configuration.Model
	}
	return ModelRef{}
}

// reconcile advances a cancelled leaf without new ordinary work: an
// effect_pending is settled synthetically as aborted (TX1, → checkpoint);
// a tools leaf runs its batch to the checkpoint (aborted and interrupted
// outcomes) when tools are configured; every other leaf gets the aborted
// terminal (TX2). A deferred leaf first
// reads its source handle, as pi's reconcile does before the best-effort
// cancelDeferred: a missing or invalid handle faults the lane there too.
// (There is no provider cancel API here, so the remote cancel itself is
// not modelled.)
func (l *Lane) reconcile(op string, s *OpState) (StepResult, error) {
	if s.At == LeafDeferredSuspended || s.At == LeafDeferredEffectPending {
		if _, _, err := l.sourceHandle(s); err != nil {
			return StepResult{}, l.faultWith(err)
		}
	}
	if s.At.IsEffectPending() {
		return l.recoverEffect(op, s, true)
	}
	if s.At == LeafTools && !l.cfg.HoldToolBatches {
		return l.runTools(op, s) // the batch settles its calls as aborted / interrupted
	}
	return l.terminate(CmdAbortedTerminal, "aborted", nil, op)
}
