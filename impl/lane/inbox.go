package lane

import (
	"fmt"

	"github.com/frameproof/frameproof/impl/pi"
	"github.com/frameproof/frameproof/impl/store"
)

// Queued input placement (runtime/drive/boundary.ts planBoundaryInbox,
// runtime/lane.ts acceptRun's selectAcceptedInbox): queued items leave the
// inbox as entries chained from the tip, in inbox order, and their pending
// entry values are deleted in the same transaction.

// queuedItem is one inbox item {entryId, kind} with its stored element.
type queuedItem struct {
	id, kind string
	raw      pi.JSONValue
}

// queueModes are a run's settings.steeringMode and followUpMode: "all"
// takes every item of the kind, anything else (pi's default
// "one-at-a-time") the first.
type queueModes struct{ steerAll, followUpAll bool }

func modesOf(settings pi.JSONValue) queueModes {
	all := func(key string) bool { return isString(settings.Prop(key), "all") }
	return queueModes{steerAll: all("steeringMode"), followUpAll: all("followUpMode")}
}

// readInbox parses pi.lane.state's inbox (undefined: empty).
func readInbox(inbox pi.JSONValue) ([]queuedItem, error) {
	if inbox.IsUndefined() {
		return nil, nil
	}
	if inbox.Kind() != pi.Array {
		return nil, fmt.Errorf("lane: lane state inbox is not an array")
	}
	items := make([]queuedItem, 0, len(inbox.Array()))
	for i, v := range inbox.Array() {
		r := &reader{path: "laneState.inbox[" + itoa(i) + "]"}
		it := queuedItem{kind: r.str(v, "kind"), id: r.str(v, "entryId"), raw: v}
		if r.err != nil {
			return nil, fmt.Errorf("lane: %w", r.err)
		}
		items = append(items, it)
	}
	return items, nil
}

// withoutItems is the inbox without the selected items, in order.
func withoutItems(items, selected []queuedItem) pi.JSONValue {
	drop := map[string]bool{}
	for _, it := range selected {
		drop[it.id] = true
	}
	kept := []pi.JSONValue{}
	for _, it := range items {
		if !drop[it.id] {
			kept = append(kept, it.raw)
		}
	}
	return pi.ArrayValue(kept)
}

// placedInput is one selected item with its pending entry value.
type placedInput struct {
	item    queuedItem
	pending pi.JSONValue // {type:"message", payload} or {type:"custom", customType, payload?}
}

func (p placedInput) isMessage() bool { return isString(p.pending.Prop("type"), "message") }

// projects: a message projects into the model context; a custom entry
// needs an entry projector, and frameproof configures none.
func (p placedInput) projects() bool { return p.isMessage() }

// readPending is the queued item's stored pending entry, nil when there is none; a read
// error names the command (during: "" or "cancel: ", ...) and the entry.
// What a missing or unparsable entry means differs by caller (pi words
// each invariant its own way), so they decide.
func (l *Lane) readPending(it queuedItem, during string) (*store.StoredValue, error) {
	stored, err := l.cfg.Storage.GetValue(PendingEntryAddr(it.id))
	if err != nil {
		return nil, fmt.Errorf("lane: %sread pending entry %s: %w", during, it.id, err)
	}
	return stored, nil
}

// loadPending reads each item's pending entry value (boundary.ts load;
// acceptRun's capture words the not-a-message fault "Pending", the
// boundary "Queued").
func (l *Lane) loadPending(items []queuedItem, notMessage string) ([]placedInput, error) {
	out := make([]placedInput, 0, len(items))
	for _, it := range items {
		stored, err := l.readPending(it, "")
		if err != nil {
			return nil, err
		}
		if stored == nil {
			return nil, &invariantError{fmt.Sprintf("Pending %s entry %s is missing its payload", it.kind, it.id)}
		}
		v, err := pi.ParseJSON(string(stored.Value))
		if err != nil {
			return nil, fmt.Errorf("lane: pending entry %s: %w", it.id, err)
		}
		p := placedInput{item: it, pending: v}
		if it.kind != "write" && !p.isMessage() {
			return nil, &invariantError{fmt.Sprintf("%s %s entry %s is not a message", notMessage, it.kind, it.id)}
		}
		out = append(out, p)
	}
	return out, nil
}

// entryRaw is the entry a pending value becomes (acceptRun's
// pendingEntryWrite, planBoundaryInbox's entries).
func (p placedInput) entryRaw(parent *string) []byte {
	payload := p.pending.Prop("payload")
	if p.isMessage() {
		return messageEntryRaw(p.item.id, parent, payload.AppendJSON(nil))
	}
	kv := []any{"id", p.item.id, "parentId", parent, "type", "custom", "customType", p.pending.Prop("customType")}
	if !payload.IsUndefined() {
		kv = append(kv, "data", payload)
	}
	return jobj(kv...).AppendJSON(nil)
}

// inboxPlacement is one placement's result (boundary.ts BoundaryPlacement).
type inboxPlacement struct {
	placed   []placedInput
	writes   []store.Write // inserts, pending deletes, branch tip
	tip      *string
	inbox    pi.JSONValue // the remaining inbox
	trigger  string       // the last projecting entry ("" none)
	selected bool         // some item left the inbox (queue_update is due)
}

// planBoundaryInbox selects the write items and the steer items (one or
// all), and, when followUpWhenNoTrigger and none of them projects, the
// followUp items (one or all) too, in inbox order, and chains them from
// the tip (boundary.ts planBoundaryInbox).
func (l *Lane) planBoundaryInbox(cur view, settings pi.JSONValue, followUpWhenNoTrigger bool) (inboxPlacement, error) {
	items, err := readInbox(cur.laneState.Inbox)
	if err != nil {
		return inboxPlacement{}, err
	}
	modes := modesOf(settings)
	steerTaken, followTaken := false, false
	pick := func(withFollowUp bool) []queuedItem {
		steerTaken, followTaken = false, false
		var sel []queuedItem
		for _, it := range items {
			ok := it.kind == "write" ||
				(it.kind == "steer" && (modes.steerAll || !steerTaken)) ||
				(withFollowUp && it.kind == "followUp" && (modes.followUpAll || !followTaken))
			if ok {
				sel = append(sel, it)
				steerTaken = steerTaken || it.kind == "steer"
				followTaken = followTaken || it.kind == "followUp"
			}
		}
		return sel
	}
	selected := pick(false)
	placed, err := l.loadPending(selected, "Queued")
	if err != nil {
		return inboxPlacement{}, err
	}
	if followUpWhenNoTrigger && !anyProjects(placed) {
		selected = pick(true)
		if placed, err = l.loadPending(selected, "Queued"); err != nil {
			return inboxPlacement{}, err
		}
	}
	p := chainPlaced(cur.tip, placed, l.cfg.Name)
	p.inbox, p.selected = withoutItems(items, selected), len(selected) > 0
	return p, nil
}

func anyProjects(placed []placedInput) bool {
	for _, p := range placed {
		if p.projects() {
			return true
		}
	}
	return false
}

// chainPlaced chains the inputs from tip: an insert per entry, then a
// delete per pending value, then the branch tip when anything was placed.
func chainPlaced(tip *string, placed []placedInput, laneName string) inboxPlacement {
	p := inboxPlacement{placed: placed, tip: tip}
	for _, in := range placed {
		p.writes = append(p.writes, store.InsertEntry(store.Entry{ID: in.item.id, ParentID: p.tip, Raw: in.entryRaw(p.tip)}))
		p.tip = strp(in.item.id)
		if in.projects() {
			p.trigger = in.item.id
		}
	}
	for _, in := range placed {
		p.writes = append(p.writes, store.DeleteValueRaw(PendingEntryAddr(in.item.id)))
	}
	if len(placed) > 0 {
		tipJSON, _ := pi.Marshal(pi.StringValue(*p.tip))
		p.writes = append(p.writes, store.SetValueRaw(BranchTipAddr(laneName), tipJSON))
	}
	return p
}

// selectAcceptedInbox is runtime/lane.ts selectAcceptedInbox: a new run
// takes every write and nextRun item and the steer and followUp items (one
// or all of each), in inbox order; the rest stays queued.
func selectAcceptedInbox(items []queuedItem, modes queueModes) (selected []queuedItem) {
	steerTaken, followTaken := false, false
	for _, it := range items {
		ok := it.kind == "write" || it.kind == "nextRun" ||
			(it.kind == "steer" && (modes.steerAll || !steerTaken)) ||
			(it.kind == "followUp" && (modes.followUpAll || !followTaken))
		if ok {
			selected = append(selected, it)
			steerTaken = steerTaken || it.kind == "steer"
			followTaken = followTaken || it.kind == "followUp"
		}
	}
	return selected
}

// laneQueues is transcript.ts readLaneQueues over the remaining inbox: per
// item {entryId, kind, type:"message", message} or a write's {entryId,
// kind:"write", type:"custom", customType, data?}.
func (l *Lane) laneQueues(inbox pi.JSONValue) (pi.JSONValue, error) {
	items, err := readInbox(inbox)
	if err != nil {
		return pi.JSONValue{}, err
	}
	loaded, err := l.loadPending(items, "Pending")
	if err != nil {
		return pi.JSONValue{}, err
	}
	out := make([]pi.JSONValue, 0, len(loaded))
	for _, p := range loaded {
		if p.isMessage() {
			out = append(out, jobj("entryId", p.item.id, "kind", p.item.kind, "type", "message", "message", p.pending.Prop("payload")))
			continue
		}
		kv := []any{"entryId", p.item.id, "kind", "write", "type", "custom", "customType", p.pending.Prop("customType")}
		if data := p.pending.Prop("payload"); !data.IsUndefined() {
			kv = append(kv, "data", data)
		}
		out = append(out, jobj(kv...))
	}
	return pi.ArrayValue(out), nil
}

// placedInputEvents are each placed message's message_start, message_end
// (with the run id) and entry_added (without), or a custom entry's
// entry_added (transcript.ts committedEntryEvents), then queue_update with
// the remaining queues when an item left the inbox.
func placedInputEvents(runID string, placed []placedInput, seqs []int64, queues pi.JSONValue, selected bool) []Event {
	var evs []Event
	for i, p := range placed {
		seq := seqs[i]
		if !p.isMessage() {
			evs = append(evs, Event{Type: EvEntryAdded, EntryID: p.item.id, Seq: seq, Raw: p.pending})
			continue
		}
		payload := p.pending.Prop("payload")
		user, err := pi.DecodeUserMessage(payload, "pending.payload")
		ev := func(t EventType, id, run string) Event {
			if err != nil {
				return Event{Type: t, RunID: run, EntryID: id, Seq: seq, Raw: payload}
			}
			return Event{Type: t, RunID: run, EntryID: id, Seq: seq, Prompt: user}
		}
		start := ev(EvMessageStart, "", runID)
		start.Seq = 0
		end := ev(EvMessageEnd, p.item.id, runID)
		end.Seq = 0
		evs = append(evs, start, end, ev(EvEntryAdded, p.item.id, ""))
	}
	if selected {
		evs = append(evs, Event{Type: EvQueueUpdate, Queues: queues})
	}
	return evs
}

// acceptedInput is what a run's acceptance takes from the inbox
// (runtime/lane.ts acceptRun): the captured items, the remaining inbox and,
// when an item was taken, the remaining queues for queue_update.
type acceptedInput struct {
	placed []placedInput
	inbox  pi.JSONValue
	queues pi.JSONValue
}

// acceptInbox selects and reads the inbox items a new run captures; a
// captured pending assistant faults as acceptRun's check does.
func (l *Lane) acceptInbox(cur view, settings pi.JSONValue) (acceptedInput, error) {
	items, err := readInbox(cur.laneState.Inbox)
	if err != nil {
		return acceptedInput{}, err
	}
	selected := selectAcceptedInbox(items, modesOf(settings))
	placed, err := l.loadPending(selected, "Pending")
	if err != nil {
		return acceptedInput{}, err
	}
	for _, p := range placed {
		msg := p.pending.Prop("payload")
		if p.isMessage() && isString(msg.Prop("role"), "assistant") && isString(msg.Prop("stopReason"), "pending") {
			return acceptedInput{}, &invariantError{fmt.Sprintf("Pending %s entry %s contains a pending assistant", p.item.kind, p.item.id)}
		}
	}
	in := acceptedInput{placed: placed, inbox: cur.laneState.Inbox}
	if len(selected) > 0 {
		in.inbox = withoutItems(items, selected)
		if in.queues, err = l.laneQueues(in.inbox); err != nil {
			return acceptedInput{}, err
		}
	}
	return in, nil
}

// chain chains the captured entries from tip (their inserts)
// and deletes their pending values; tip is the last captured entry.
func (a acceptedInput) chain(tip *string) (inserts, deletes []store.Write, last *string) {
	for _, p := range a.placed {
		inserts = append(inserts, store.InsertEntry(store.Entry{ID: p.item.id, ParentID: tip, Raw: p.entryRaw(tip)}))
		deletes = append(deletes, store.DeleteValueRaw(PendingEntryAddr(p.item.id)))
		tip = strp(p.item.id)
	}
	return inserts, deletes, tip
}
