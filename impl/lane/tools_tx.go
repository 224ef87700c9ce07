package lane

import (
	"fmt"

	"github.com/frameproof/frameproof/impl/pi"
	"github.com/frameproof/frameproof/impl/store"
)

// batchSource is tool-placement.ts's ToolBatchSource: the batch's assistant
// message and its tool-call blocks by source index, with the batch's turn.
type batchSource struct {
	assistant *pi.AssistantMessage
	calls     map[int]pi.ToolCall
	turnID    string
	size      int
}

// toolCallFor is tool-placement.ts toolCallFor.
func (src *batchSource) toolCallFor(c PlannedCall) (pi.ToolCall, error) {
	tc, ok := src.calls[c.SourceIndex]
	if !ok {
		return pi.ToolCall{}, toolInvariant("Tool call source index %d is invalid", c.SourceIndex)
	}
	return tc, nil
}

// toolsTarget is settleOperation's current operation for a tools TX: a
// finalized (or replaced) operation is a stale target, another leaf a
// broken invariant.
func (l *Lane) toolsTarget(cur view, op string) (*OpState, error) {
	if cur.op == nil || cur.op.ID != op {
		return nil, l.staleTarget(cur)
	}
	if cur.op.State.At != LeafTools {
		return nil, toolInvariant("Operation %s is at %s, not tools", op, cur.op.State.At)
	}
	return cur.op.State, nil
}

// withCall is replaceCall on a copy of view cur's tools state.
func withCall(cur view, c PlannedCall) view {
	next := cur.clone()
	next.op.State = next.op.State.Clone()
	for i, old := range next.op.State.Calls {
		if old.SourceIndex == c.SourceIndex && old.ResultEntryID == c.ResultEntryID {
			next.op.State.Calls[i] = c
		}
	}
	return next
}

// readToolSource is readToolBatchSource: the batch's assistant entry and
// the tool-call block each call names.
func (l *Lane) readToolSource(op string, s *OpState) (*batchSource, error) {
	var src *batchSource
	_, _, err := l.command(CmdToolSource, func(view) (plan, error) {
		entries, err := l.readEntries([]string{s.BatchAssistantEntryID})
		if err != nil {
			return plan{}, err
		}
		msg, err := assistantOf(entries[s.BatchAssistantEntryID])
		if err != nil {
			return plan{}, err
		}
		src = &batchSource{assistant: msg, calls: map[int]pi.ToolCall{}, turnID: s.BatchTurnID, size: len(s.Calls)}
		for _, c := range s.Calls {
			var tc pi.ToolCall
			ok := c.SourceIndex >= 0 && c.SourceIndex < len(msg.Content)
			if ok {
				tc, ok = msg.Content[c.SourceIndex].(pi.ToolCall)
			}
			if !ok {
				return plan{}, toolInvariant("Tool call source index %d does not name a tool-call block", c.SourceIndex)
			}
			src.calls[c.SourceIndex] = tc
		}
		return plan{}, nil
	})
	return src, err
}

// assistantOf is the assistant message of a stored message entry.
func assistantOf(entry pi.JSONValue) (*pi.AssistantMessage, error) {
	m := entry.Prop("message")
	if entry.Kind() != pi.Object || !isString(entry.Prop("type"), "message") || !isString(m.Prop("role"), "assistant") {
		return nil, toolInvariant("Tool batch assistant entry is invalid")
	}
	msg, err := pi.DecodeAssistantMessage(m, "entry.message")
	if err != nil {
		return nil, fmt.Errorf("lane: tool batch assistant entry: %w", err)
	}
	return msg, nil
}

func isString(v pi.JSONValue, s string) bool { return v.Kind() == pi.String && v.Str() == s }

// readEntries parses the stored entries with the given ids (absent ids
// are missing from the map).
func (l *Lane) readEntries(ids []string) (map[string]pi.JSONValue, error) {
	out := map[string]pi.JSONValue{}
	if len(ids) == 0 {
		return out, nil
	}
	entries, err := store.GetEntriesOf(l.cfg.Storage, ids)
	if err != nil {
		return nil, fmt.Errorf("lane: tools: read entries: %w", err)
	}
	for _, e := range entries.All() {
		v, err := pi.ParseJSON(string(e.Entry.Raw))
		if err != nil {
			return nil, fmt.Errorf("lane: tools: entry %s: %w", e.Entry.ID, err)
		}
		out[e.Entry.ID] = v
	}
	return out, nil
}

// publishIntent is publishToolIntent (continueOperation): under
// cancel_requested it commits nothing and reports cancelled.
func (l *Lane) publishIntent(op string, call PlannedCall, tc pi.ToolCall, args pi.JSONValue, replay string, recovery bool) (bool, error) {
	cancelled := false
	var turnID string
	_, _, err := l.command(CmdToolIntent, func(cur view) (plan, error) {
		st, err := l.toolsTarget(cur, op)
		if err != nil {
			return plan{}, err
		}
		if st.Control.CancelRequested {
			cancelled = true
			return plan{}, nil
		}
		turnID = st.BatchTurnID
		pending := PlannedCall{Status: CallEffectPending, SourceIndex: call.SourceIndex, ResultEntryID: call.ResultEntryID, Replay: replay}
		next := withCall(cur, pending)
		writes := []store.Write{store.SetValueRaw(ToolArgsAddr(op, turnID, call.SourceIndex), args.AppendJSON(nil)),
			store.SetValueRaw(OpStateAddr(op), MarshalState(next.op.State))}
		return plan{commit: true, writes: writes, next: next, events: func(store.CommitResult) []Event {
			return []Event{{Type: EvToolStart, RunID: op, TurnID: turnID, ToolCallID: tc.ID, ToolName: tc.Name, Args: args, Recovery: recovery}}
		}}, nil
	})
	return cancelled, err
}

// publishOutcome is publishToolOutcome (settleOperation): stage the result
// entry, clear the progress checkpoint and memos, mark the call
// outcome_ready (terminate only while control is running).
func (l *Lane) publishOutcome(op string, call PlannedCall, out toolOutcome, recovery bool) error {
	return l.queueOutcome(op, call, out, recovery)()
}

// queueOutcome enqueues publishOutcome's command on the line now and
// returns the rest (await the commit, emit tool_start/tool_end): runParallel
// starts an outcome's command without awaiting it, so it lands on the line
// before the next call's intent.
func (l *Lane) queueOutcome(op string, call PlannedCall, out toolOutcome, recovery bool) func() error {
	payload := append(append([]byte(`{"type":"message","payload":`), out.message.AppendJSON(nil)...), '}')
	results := [2]pi.JSONValue{} // toolResultFromMessage without and with terminate
	for i := range results {
		r, err := toolResultValue(out.message, i == 1)
		if err != nil {
			return func() error { return l.faultWith(err) }
		}
		results[i] = r
	}
	fut, res := l.commandAsync(CmdToolOutcome, func(cur view) (plan, error) {
		st, err := l.toolsTarget(cur, op)
		if err != nil {
			return plan{}, err
		}
		memos, err := l.cfg.Storage.ScanValues(NSToolMemo, op+":"+call.ResultEntryID+":")
		if err != nil {
			return plan{}, fmt.Errorf("lane: tool outcome: scan memos: %w", err)
		}
		turnID, terminate := st.BatchTurnID, !st.Control.CancelRequested && out.terminate
		next := withCall(cur, PlannedCall{Status: CallOutcomeReady, SourceIndex: call.SourceIndex, ResultEntryID: call.ResultEntryID, Terminate: terminate})
		writes := []store.Write{store.SetValueRaw(PendingEntryAddr(call.ResultEntryID), payload),
			store.DeleteValueRaw(PendingToolOutputAddr(op, call.ResultEntryID))}
		for _, m := range memos {
			writes = append(writes, store.DeleteValueRaw(m.Address))
		}
		writes = append(writes, store.SetValueRaw(OpStateAddr(op), MarshalState(next.op.State)))
		result := results[0]
		if terminate {
			result = results[1]
		}
		return plan{commit: true, writes: writes, next: next, events: func(store.CommitResult) []Event {
			return outcomeEvents(op, turnID, call, out, result, terminate, recovery)
		}}, nil
	})
	return func() error {
		err := fut.Wait()
		if err == nil {
			l.awaitDelivery(res.delivery)
		}
		return err
	}
}

// outcomeEvents are a committed outcome's events: tool_start when the call
// was still planned, then tool_end.
func outcomeEvents(op, turnID string, call PlannedCall, out toolOutcome, result pi.JSONValue, terminate, recovery bool) []Event {
	tc := out.call
	var evs []Event
	if call.status() == CallPlanned {
		evs = append(evs, Event{Type: EvToolStart, RunID: op, TurnID: turnID, ToolCallID: tc.ID, ToolName: tc.Name, Args: tc.Arguments, Recovery: recovery})
	}
	return append(evs, Event{Type: EvToolEnd, RunID: op, TurnID: turnID, ToolCallID: tc.ID, ToolName: tc.Name,
		ToolResult: result, IsError: out.message.IsError, Terminate: terminate, Recovery: recovery})
}

// clearReplay is clearReplayCheckpoint (a plain command): drop the call's
// progress checkpoint and return its persisted arguments.
func (l *Lane) clearReplay(op, turnID string, call PlannedCall, tc pi.ToolCall) (pi.JSONValue, error) {
	var args pi.JSONValue
	_, _, err := l.command(CmdToolReplayClear, func(cur view) (plan, error) {
		stored, err := l.cfg.Storage.GetValue(ToolArgsAddr(op, turnID, call.SourceIndex))
		if err != nil {
			return plan{}, fmt.Errorf("lane: tool replay: read arguments: %w", err)
		}
		if stored == nil {
			return plan{}, toolInvariant("Tool call %s is missing persisted arguments", call.ResultEntryID)
		}
		if args, err = pi.ParseJSON(string(stored.Value)); err != nil {
			return plan{}, fmt.Errorf("lane: tool replay: arguments of %s: %w", call.ResultEntryID, err)
		}
		return plan{commit: true, writes: []store.Write{store.DeleteValueRaw(PendingToolOutputAddr(op, call.ResultEntryID))}, next: cur,
			events: func(store.CommitResult) []Event {
				return []Event{{Type: EvToolStart, RunID: op, TurnID: turnID, ToolCallID: tc.ID, ToolName: tc.Name, Args: args, Recovery: true}}
			}}, nil
	})
	return args, err
}

// readCheckpoint is tools.ts readCheckpoint: the call's stored progress
// checkpoint (an AgentToolResult), or nil.
func (l *Lane) readCheckpoint(op string, call PlannedCall) (*pi.ToolResultMessage, error) {
	var cp *pi.ToolResultMessage
	_, _, err := l.command(CmdToolCheckpointRead, func(view) (plan, error) {
		stored, err := l.cfg.Storage.GetValue(PendingToolOutputAddr(op, call.ResultEntryID))
		if err != nil || stored == nil {
			return plan{}, err
		}
		cp, err = decodeCheckpoint(stored.Value)
		if err != nil {
			return plan{}, fmt.Errorf("lane: tool checkpoint %s:%s: %w", op, call.ResultEntryID, err)
		}
		return plan{}, nil
	})
	return cp, err
}

// decodeCheckpoint reads an AgentToolResult's content (?? []), details and
// usage through the tool-result message decoder.
func decodeCheckpoint(raw []byte) (*pi.ToolResultMessage, error) {
	v, err := pi.ParseJSON(string(raw))
	if err != nil {
		return nil, err
	}
	if v.Kind() != pi.Object {
		return nil, fmt.Errorf("checkpoint is not an object")
	}
	content := v.Prop("content")
	if content.IsUndefined() || content.Kind() == pi.Null {
		content = pi.ArrayValue(nil)
	}
	msg := jobj("role", "toolResult", "toolCallId", "", "toolName", "", "content", content,
		"details", v.Prop("details"), "usage", v.Prop("usage"), "isError", true, "timestamp", 0)
	return pi.DecodeToolResultMessage(msg, "checkpoint")
}
