package lane

import (
	"fmt"

	"github.com/frameproof/frameproof/impl/pi"
	"github.com/frameproof/frameproof/impl/store"
)

// placementItem is one staged result ready to become an entry: the call,
// the staged message as stored (the entry's bytes) and typed (events).
type placementItem struct {
	call    PlannedCall
	payload pi.JSONValue
	message *pi.ToolResultMessage
}

// placementRead is tool-placement.ts's PlacementRead: the leading
// outcome_ready calls, and every call's result when they close the batch.
type placementRead struct {
	items       []placementItem
	turnResults []*pi.ToolResultMessage
}

// materializeReady places the leading ready outcomes: message_start and
// message_end per item before the commit (emitBatch), the placement TX,
// then turn_end when it completed the batch (complete).
func (l *Lane) materializeReady(op string, src *batchSource, recovery bool) (complete bool, err error) {
	complete, _, err = l.materializeSeen(op, src, recovery)
	return complete, err
}

// materializeSeen is materializeReady that also returns op's tools state as
// its last line item saw it (nil: op is no longer at tools): what runTools'
// currentBatch reads right after it (pi's await resumes before a later
// command can commit).
func (l *Lane) materializeSeen(op string, src *batchSource, recovery bool) (complete bool, seen *OpState, err error) {
	read, err := l.readPlacement(op, src, recovery, &seen)
	if err != nil || read == nil {
		return false, seen, err
	}
	complete, err = l.commitPlacement(op, src, read, recovery, &seen)
	if err != nil {
		return false, seen, err
	}
	return complete, seen, nil
}

// readEvents are the read results' message_start and message_end, which
// pi emits before committing their placement.
func readEvents(op string, read *placementRead, recovery bool) []Event {
	var evs []Event
	for _, it := range read.items {
		evs = append(evs, Event{Type: EvMessageStart, RunID: op, ToolMessage: it.message, Recovery: recovery},
			Event{Type: EvMessageEnd, RunID: op, ToolMessage: it.message, EntryID: it.call.ResultEntryID, Recovery: recovery})
	}
	return evs
}

// toolsSeen is op's tools state in view cur (nil: op is not at tools).
func toolsSeen(cur view, op string) *OpState {
	if cur.op == nil || cur.op.ID != op || cur.op.State.At != LeafTools {
		return nil
	}
	return cur.op.State.Clone()
}

// readPlacement is tool-placement.ts readPlacement (a read on the line).
func (l *Lane) readPlacement(op string, src *batchSource, recovery bool, seen **OpState) (*placementRead, error) {
	var out *placementRead
	_, _, err := l.command(CmdToolPlacementRead, func(cur view) (plan, error) {
		*seen = toolsSeen(cur, op)
		if cur.op == nil || cur.op.State.At != LeafTools {
			return plan{}, nil
		}
		calls := cur.op.State.Calls
		first, ok := firstOpenIndex(calls)
		if !ok {
			return plan{}, nil
		}
		var items []placementItem
		for ; first < len(calls) && calls[first].status() == CallOutcomeReady; first++ {
			it, err := l.stagedItem(calls[first], src)
			if err != nil {
				return plan{}, err
			}
			items = append(items, it)
		}
		if len(items) == 0 {
			return plan{}, nil
		}
		out = &placementRead{items: items}
		if first == len(calls) {
			rs, err := l.turnResults(calls, items)
			if err != nil {
				return plan{}, err
			}
			out.turnResults = rs
		}
		return plan{events: func(store.CommitResult) []Event { return readEvents(op, out, recovery) }}, nil
	})
	return out, err
}

// firstOpenIndex is the first call not yet completed (readPlacement and
// runSequential both start there).
func firstOpenIndex(calls []PlannedCall) (int, bool) {
	for i, c := range calls {
		if c.status() != CallCompleted {
			return i, true
		}
	}
	return 0, false
}

// stagedItem reads a ready call's staged result and checks it answers the
// call's tool-call block.
func (l *Lane) stagedItem(c PlannedCall, src *batchSource) (placementItem, error) {
	missing := toolInvariant("Tool call %s is missing its staged result", c.ResultEntryID)
	stored, err := l.cfg.Storage.GetValue(PendingEntryAddr(c.ResultEntryID))
	if err != nil {
		return placementItem{}, fmt.Errorf("lane: tool placement: read staged result: %w", err)
	}
	if stored == nil {
		return placementItem{}, missing
	}
	v, err := pi.ParseJSON(string(stored.Value))
	if err != nil {
		return placementItem{}, fmt.Errorf("lane: tool placement: staged result %s: %w", c.ResultEntryID, err)
	}
	payload := v.Prop("payload")
	if !isString(v.Prop("type"), "message") || !isString(payload.Prop("role"), "toolResult") {
		return placementItem{}, missing
	}
	msg, err := pi.DecodeToolResultMessage(payload, "pending.payload")
	if err != nil {
		return placementItem{}, fmt.Errorf("lane: tool placement: staged result %s: %w", c.ResultEntryID, err)
	}
	tc, err := src.toolCallFor(c)
	if err != nil {
		return placementItem{}, err
	}
	if msg.ToolCallID != tc.ID || msg.ToolName != tc.Name {
		return placementItem{}, toolInvariant("Tool call %s has a mismatched staged result", c.ResultEntryID)
	}
	return placementItem{call: c, payload: payload, message: msg}, nil
}

// turnResults are every call's result in call order: staged now, or placed
// as an entry earlier.
func (l *Lane) turnResults(calls []PlannedCall, items []placementItem) ([]*pi.ToolResultMessage, error) {
	staged := map[string]*pi.ToolResultMessage{}
	for _, it := range items {
		staged[it.call.ResultEntryID] = it.message
	}
	var placedIDs []string
	for _, c := range calls {
		if c.status() == CallCompleted {
			placedIDs = append(placedIDs, c.ResultEntryID)
		}
	}
	placed, err := l.readEntries(placedIDs)
	if err != nil {
		return nil, err
	}
	out := make([]*pi.ToolResultMessage, len(calls))
	for i, c := range calls {
		out[i] = staged[c.ResultEntryID]
		if e, ok := placed[c.ResultEntryID]; out[i] == nil && ok && isString(e.Prop("type"), "message") && isString(e.Prop("message").Prop("role"), "toolResult") {
			if out[i], err = pi.DecodeToolResultMessage(e.Prop("message"), "entry.message"); err != nil {
				return nil, fmt.Errorf("lane: tool placement: result entry %s: %w", c.ResultEntryID, err)
			}
		}
		if out[i] == nil {
			return nil, toolInvariant("Completed tool call %s is missing its result entry", c.ResultEntryID)
		}
	}
	return out, nil
}

// commitPlacement is tool-placement.ts commitPlacement (settleOperation):
// the items become entries after the tip, the branch tip moves, and a
// complete batch deletes its arguments and checkpoints. It reports whether
// the batch completed.
func (l *Lane) commitPlacement(op string, src *batchSource, read *placementRead, recovery bool, seen **OpState) (bool, error) {
	usageIDs := make([]string, len(read.items))
	for i, it := range read.items {
		if it.message.Usage != nil {
			usageIDs[i] = l.cfg.IDs.NewID()
		}
	}
	complete := false
	var usageAt []int // write index of each item's usage row (-1: none)
	_, committed, err := l.command(CmdToolPlace, func(cur view) (plan, error) {
		st, err := l.toolsTarget(cur, op)
		if err != nil {
			return plan{}, err
		}
		writes, tip, at := placementWrites(cur.tip, read.items, usageIDs)
		usageAt = at
		tipJSON, _ := pi.Marshal(pi.StringValue(tip))
		writes = append(writes, store.SetValueRaw(BranchTipAddr(l.cfg.Name), tipJSON))
		next := cur.clone()
		next.tip = strp(tip)
		next.op.State, complete = placedState(st, read.items, tip)
		if complete {
			args, err := l.cfg.Storage.ScanValues(NSToolArgs, op+":"+st.BatchTurnID+":")
			if err != nil {
				return plan{}, fmt.Errorf("lane: tool placement: scan arguments: %w", err)
			}
			for _, a := range args {
				writes = append(writes, store.DeleteValueRaw(a.Address))
			}
		}
		writes = append(writes, store.SetValueRaw(OpStateAddr(op), MarshalState(next.op.State)))
		*seen = toolsSeen(next, op)
		done := complete
		return plan{commit: true, writes: writes, next: next, events: func(res store.CommitResult) []Event {
			evs := placedEvents(op, read.items, usageIDs, usageAt, res)
			if done && read.turnResults != nil {
				evs = append(evs, Event{Type: EvTurnEnd, RunID: op, TurnID: src.turnID, Message: src.assistant, ToolResults: read.turnResults, Recovery: recovery})
			}
			return evs
		}}, nil
	})
	if err != nil || !committed {
		return false, err
	}
	return complete, nil
}

// placementWrites chains the items after parent: per item insert entry,
// delete its staged result, and a usage row when its message has usage.
func placementWrites(parent *string, items []placementItem, usageIDs []string) ([]store.Write, string, []int) {
	var writes []store.Write
	at := make([]int, len(items))
	for i, it := range items {
		id := it.call.ResultEntryID
		writes = append(writes, store.InsertEntry(store.Entry{ID: id, ParentID: parent, Raw: toolEntryRaw(id, parent, it.payload, it.call.Terminate)}),
			store.DeleteValueRaw(PendingEntryAddr(id)))
		at[i] = -1
		if usageIDs[i] != "" {
			at[i] = len(writes)
			writes = append(writes, store.InsertUsage(store.UsageRow{ID: usageIDs[i], Raw: usageRowRaw(usageIDs[i], *it.message.Usage, id)}))
		}
		parent = strp(id)
	}
	return writes, *parent, at
}

// placedState marks the items completed; a complete batch becomes the
// checkpoint (may_finish when every call terminates, else need_assistant)
// triggered by the last placed entry.
func placedState(st *OpState, items []placementItem, tip string) (*OpState, bool) {
	next := st.Clone()
	complete, allTerminate := true, true
	for i, c := range next.Calls {
		for _, it := range items {
			if it.call.SourceIndex == c.SourceIndex && it.call.ResultEntryID == c.ResultEntryID {
				c = PlannedCall{Status: CallCompleted, SourceIndex: c.SourceIndex, ResultEntryID: c.ResultEntryID, Terminate: it.call.Terminate}
				next.Calls[i] = c
			}
		}
		complete = complete && c.status() == CallCompleted
		allTerminate = allTerminate && c.status() == CallCompleted && c.Terminate
	}
	if !complete {
		return next, false
	}
	cp := st.scope(LeafCheckpoint)
	cp.TriggerEntryID = tip
	cp.Continuation = Continuation{Kind: ContinueNeedAssistant}
	if allTerminate {
		cp.Continuation = Continuation{Kind: ContinueMayFinish}
	}
	return cp, true
}

// placedEvents are entry_added (and usage) per placed item.
func placedEvents(op string, items []placementItem, usageIDs []string, usageAt []int, res store.CommitResult) []Event {
	var evs []Event
	for i, it := range items {
		id := it.call.ResultEntryID
		evs = append(evs, Event{Type: EvEntryAdded, RunID: op, ToolMessage: it.message, EntryID: id, Seq: res.Seqs[2*i+usageBefore(usageAt, i)], Terminate: it.call.Terminate})
		if usageAt[i] >= 0 {
			u := *it.message.Usage
			evs = append(evs, Event{Type: EvUsage, RunID: op, UsageID: usageIDs[i], Seq: res.Seqs[usageAt[i]], Usage: &u, EntryID: id, ToolMessage: it.message})
		}
	}
	return evs
}

// usageBefore counts the usage rows written before item i.
func usageBefore(usageAt []int, i int) int {
	n := 0
	for _, at := range usageAt[:i] {
		if at >= 0 {
			n++
		}
	}
	return n
}

// toolEntryRaw is a placed entry {id, parentId, type:"message", message,
// terminate?: true}.
func toolEntryRaw(id string, parent *string, message pi.JSONValue, terminate bool) []byte {
	raw := messageEntryRaw(id, parent, message.AppendJSON(nil))
	if !terminate {
		return raw
	}
	return append(raw[:len(raw)-1], `,"terminate":true}`...)
}
