package lane

import (
	"fmt"

	"github.com/frameproof/frameproof/impl/pi"
)

// Placing queued input, from pi's rules (runtime/drive/boundary.ts
// planBoundaryInbox, runtime/lane.ts acceptRun and selectAcceptedInbox):
//
//   - a run boundary that asks for an assistant step places the first
//     steer item (every steer item with settings.steeringMode "all");
//   - a boundary that may finish does the same, and when that places
//     nothing it places the first followUp item (every one with
//     settings.followUpMode "all") instead: a placed message starts the
//     next assistant step, otherwise the run finishes;
//   - a new run takes every nextRun item, the first steer and the first
//     followUp item (all of either kind with "all"), before its prompt.
//
// Placed items become message entries chained from the tip in inbox order;
// the transaction inserts them, deletes their pending values and moves the
// branch tip, and the items leave the inbox. Every placement that took an
// item emits each entry's message_start, message_end and entry_added and
// then queue_update.

// queueModes reads a run's settings.steeringMode and followUpMode ("all",
// or pi's default "one-at-a-time" for anything else).
func queueModes(settings pi.JSONValue) (steerAll, followUpAll bool) {
	mode := func(key string) bool {
		v := settings.Prop(key)
		return v.Kind() == pi.String && v.Str() == "all"
	}
	return mode("steeringMode"), mode("followUpMode")
}

// takeInbox picks, in inbox order, the items take admits; first lets the
// caller count per kind.
func (m *Model) takeInbox(take func(kind string, seen map[string]int) bool) []InboxItem {
	seen := map[string]int{}
	var out []InboxItem
	for _, it := range m.st.Lane.Inbox {
		if take(it.Kind, seen) {
			out = append(out, it)
			seen[it.Kind]++
		}
	}
	return out
}

// boundaryItems is planBoundaryInbox's selection for the run op.
func (m *Model) boundaryItems(op string, mayFinish bool) []InboxItem {
	steerAll, followUpAll := queueModes(m.ops[op].run.Settings)
	sel := m.takeInbox(func(kind string, seen map[string]int) bool {
		return kind == "steer" && (steerAll || seen[kind] == 0)
	})
	if len(sel) > 0 || !mayFinish {
		return sel
	}
	return m.takeInbox(func(kind string, seen map[string]int) bool {
		return kind == "followUp" && (followUpAll || seen[kind] == 0)
	})
}

// acceptedItems is selectAcceptedInbox for a run started with run.
func (m *Model) acceptedItems(run Run) []InboxItem {
	steerAll, followUpAll := queueModes(run.Settings)
	return m.takeInbox(func(kind string, seen map[string]int) bool {
		switch kind {
		case "nextRun":
			return true
		case "steer":
			return steerAll || seen[kind] == 0
		case "followUp":
			return followUpAll || seen[kind] == 0
		}
		return false
	})
}

// placeItems applies a placement to the committed state: entries chained
// from the tip, pending values gone, the items out of the inbox. It
// returns the inserts and the deletes the transaction writes, in order.
func (m *Model) placeItems(items []InboxItem) (inserts, deletes []TXWrite) {
	gone := map[string]bool{}
	for _, it := range items {
		inserts = append(inserts, TXWrite{Kind: "entry", Key: it.EntryID, Parent: m.st.Tip})
		deletes = append(deletes, deleteValue(nsPendingEntry, it.EntryID))
		m.st.Entries = append(m.st.Entries, Entry{ID: it.EntryID, Parent: m.st.Tip, Message: m.queuedMsg[it.EntryID]})
		m.st.Tip, m.tipStored = it.EntryID, true
		m.unpend(it.EntryID)
		gone[it.EntryID] = true
	}
	var kept []InboxItem
	for _, it := range m.st.Lane.Inbox {
		if !gone[it.EntryID] {
			kept = append(kept, it)
		}
	}
	m.st.Lane.Inbox = kept
	return inserts, deletes
}

// placedEvents are a placement's events (boundaryPlacementEvents): each
// entry's lifecycle, then queue_update when an item was taken.
func (m *Model) placedEvents(items []InboxItem) {
	for range items {
		m.emit("message_start", false)
		m.emit("message_end", false)
		m.emit("entry_added", false)
	}
	if len(items) > 0 {
		m.emit("queue_update", false)
	}
}

// boundaryWrites is a boundary placement's write prefix: the inserts, the
// pending deletes and the branch tip when anything was placed.
func (m *Model) boundaryWrites(items []InboxItem) []TXWrite {
	inserts, deletes := m.placeItems(items)
	ws := append(inserts, deletes...)
	if len(items) > 0 {
		ws = append(ws, setValue(nsBranchTip, m.cfg.Lane, jsonString(m.st.Tip)))
	}
	return ws
}

// readyAtBoundary moves op to assistant.ready with the lane-minted stepID
// after the placement items (assistantReadyAtBoundary): a placed message is
// the step's trigger. The TX is the placement, the op state, the lane state.
// The ready state keeps the checkpoint o's continuation and trigger: pi's
// assistantReadyAtBoundary (runtime/drive/boundary.ts) spreads the scope it
// is given, and runCheckpoint (checkpoint.ts) and finishRunBoundary give it
// the whole checkpoint state.
func (m *Model) readyAtBoundary(id string, o Op, stepID string, items []InboxItem) error {
	if err := m.fresh(stepID); err != nil {
		return fmt.Errorf("model/lane: assistant step at the boundary: %w", err)
	}
	info := m.ops[id]
	cont, trigger := info.checkpointResume(o) // before the placement moves the trigger on
	info.readyFrom = checkpointPair{continuation: cont, trigger: trigger}
	info.run.StepID = stepID
	if m.config != nil {
		info.run.Model, info.run.ThinkingLevel, info.run.ActiveToolNames = m.config.Model, m.config.ThinkingLevel, append([]string(nil), m.config.ActiveToolNames...)
	}
	info.afterTools = false
	ws := m.boundaryWrites(items)
	if len(items) > 0 {
		info.genTrigger = items[len(items)-1].EntryID
	}
	m.expectTX(append(ws, setValue(nsOpState, id, ""), setValue(nsLaneState, m.cfg.Lane, ""))...)
	m.st.Ops[id] = Op{At: AtReady, NextAttempt: 1, CancelRequested: o.CancelRequested, RequestedAt: o.RequestedAt,
		LatestAssistantEntryID: o.LatestAssistantEntryID, Continuation: o.Continuation}
	m.placedEvents(items)
	m.boundary = true
	return nil
}

// BoundaryStep: the step id a may_finish boundary's transaction minted (""
// when it minted none: the run finished). The driver gives it before
// StepDone; the model decides whether one was due.
func (m *Model) BoundaryStep(stepID string) { m.boundaryStep = stepID }

// finishAtBoundary is a may_finish checkpoint's step at its commit: a
// placed message starts the next assistant step (it must carry the minted
// step id), otherwise the run finishes completed after the placement.
func (m *Model) finishAtBoundary(id string, o Op) (Outcome, error) {
	step := m.boundaryStep
	m.boundaryStep = ""
	prep := m.threshold(id, o).prep
	items := m.boundaryItems(id, prep == "") // a compacting boundary places no followUp
	if len(items) == 0 && prep != "" {
		if step != "" {
			return Outcome{}, fmt.Errorf("model/lane: the run's boundary compacts past the threshold, but the lane started assistant step %s", step)
		}
		return Outcome{Kind: "progress"}, m.compactAtBoundary(id, o, prep, items)
	}
	if err := m.noTaskExpected(); err != nil {
		return Outcome{}, err
	}
	if len(items) > 0 {
		if step == "" {
			return Outcome{}, fmt.Errorf("model/lane: the run's boundary must place queued %s %s and start an assistant step, but the lane finished", items[0].Kind, items[0].EntryID)
		}
		return Outcome{Kind: "progress"}, m.readyAtBoundary(id, o, step, items)
	}
	if step != "" {
		return Outcome{}, fmt.Errorf("model/lane: the run's boundary has no queued input to place, but the lane started assistant step %s", step)
	}
	m.expectTX(m.terminalWrites(id, o)...)
	m.terminate(id, "completed", "", "")
	m.emitRunEnd(id)
	return Outcome{Kind: "settled", Status: "completed"}, nil
}

// acceptWrites is acceptRun's TX (runtime/lane.ts) with the captured
// items, placed before the prompt entry user: their inserts, the prompt's
// insert, the pending deletes, branch tip, op meta, op state, lane state.
func (m *Model) acceptWrites(op, user string, items []InboxItem) []TXWrite {
	inserts, deletes := m.placeItems(items)
	ws := append(inserts, TXWrite{Kind: "entry", Key: user, Parent: m.st.Tip})
	ws = append(ws, deletes...)
	return append(ws, setValue(nsBranchTip, m.cfg.Lane, jsonString(user)),
		setValue(nsOpMeta, op, ""), setValue(nsOpState, op, ""), setValue(nsLaneState, m.cfg.Lane, ""))
}
