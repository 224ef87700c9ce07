package lane

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Queued input (runtime/lane.ts enqueue, requestOperationAbort): the lane's
// inbox lists queued items in order; each item's message is a pending entry
// value until the item is consumed or removed. A cancel request removes
// the steer and followUp items, keeping the rest in order.

// steering reports whether a cancel request removes an item of kind.
func steering(kind string) bool { return kind == "steer" || kind == "followUp" }

// Enqueue: the pending entry of entryID, then the lane state with
// {entryID, kind} appended to the inbox, in one transaction. Queuing works
// with or without a current operation. Once it committed, queue_update
// follows (pi's enqueue emits it with every queued item, the new one last);
// no other command's event falls between the commit and it. message is the
// queued message's JSON, which its placement commits.
func (m *Model) Enqueue(entryID, kind, message string) error {
	switch kind {
	case "steer", "followUp", "nextRun":
	default:
		return fmt.Errorf("model/lane: enqueue %s: kind %q is not steer, followUp or nextRun", entryID, kind)
	}
	if err := m.fresh(entryID); err != nil {
		return fmt.Errorf("model/lane: enqueue: %w", err)
	}
	m.expectTX(setValue(nsPendingEntry, entryID, ""), setValue(nsLaneState, m.cfg.Lane, ""))
	m.st.Lane.Inbox = append(m.st.Lane.Inbox, InboxItem{EntryID: entryID, Kind: kind})
	m.st.Pending = append(m.st.Pending, entryID)
	sort.Strings(m.st.Pending)
	m.queued = append(m.queued, entryID)
	if m.queuedMsg == nil {
		m.queuedMsg = map[string]string{}
	}
	m.queuedMsg[entryID] = message
	m.emit("queue_update", false)
	return nil
}

// abortEvent is operation_abort for op with the messages of the steer and
// followUp items the request removes (before removeSteering).
func (m *Model) abortEvent(op string) string {
	var steer, followUp []string
	for _, it := range m.st.Lane.Inbox {
		switch it.Kind {
		case "steer":
			steer = append(steer, m.queuedMsg[it.EntryID])
		case "followUp":
			followUp = append(followUp, m.queuedMsg[it.EntryID])
		}
	}
	return AbortEvent(op, steer, followUp)
}

// AbortEvent names operation_abort in the model's event vocabulary: the
// operation, then the removed steer and followUp messages (canonical
// JSON) in inbox order.
func AbortEvent(op string, steer, followUp []string) string {
	return "operation_abort:" + op + " steer=[" + strings.Join(steer, ",") + "] followUp=[" + strings.Join(followUp, ",") + "]"
}

// removeSteering drops the steer and followUp items and their pending
// entries (the state half of cancelWrites); it reports whether any went.
func (m *Model) removeSteering() bool {
	var kept []InboxItem
	removed := map[string]bool{}
	for _, it := range m.st.Lane.Inbox {
		if steering(it.Kind) {
			removed[it.EntryID] = true
			continue
		}
		kept = append(kept, it)
	}
	m.st.Lane.Inbox = kept
	var pending []string
	for _, id := range m.st.Pending {
		if !removed[id] {
			pending = append(pending, id)
		}
	}
	m.st.Pending = pending
	return len(removed) > 0
}

// Inbox is the committed inbox, in order.
func (m *Model) Inbox() []InboxItem { return append([]InboxItem(nil), m.st.Lane.Inbox...) }

// QueuedMessage is the message queued as entryID (canonical JSON), which
// pi's queue_update carries for a queued item (readLaneQueues).
func (m *Model) QueuedMessage(entryID string) (string, bool) {
	msg, ok := m.queuedMsg[entryID]
	return msg, ok
}

// QueuedIDs lists every entry id ever queued, in queue order: a driver
// reads their pending entries back, so a removal the model expects cannot
// hide, nor can a pending entry that should remain.
func (m *Model) QueuedIDs() []string { return append([]string(nil), m.queued...) }

// CancelQueued: one queued item of any kind is removed, with or without a
// current operation (runtime/lane.ts cancelQueued): its pending entry is
// deleted and the lane state set without it, in one transaction, and
// queue_update follows. An id the inbox does not hold commits nothing; the
// answer is "already_consumed" when an entry has the id, else
// "not_found" ("cancelled" when it removed the item).
func (m *Model) CancelQueued(entryID string) string {
	defer m.fillStateValues()
	i := slices.IndexFunc(m.st.Lane.Inbox, func(it InboxItem) bool { return it.EntryID == entryID })
	if i == -1 {
		m.expectTX()
		if slices.ContainsFunc(m.st.Entries, func(e Entry) bool { return e.ID == entryID }) {
			return "already_consumed"
		}
		return "not_found"
	}
	m.expectTX(deleteValue(nsPendingEntry, entryID), setValue(nsLaneState, m.cfg.Lane, ""))
	m.st.Lane.Inbox = slices.Delete(slices.Clone(m.st.Lane.Inbox), i, i+1)
	m.unpend(entryID)
	m.emit("queue_update", false)
	return "cancelled"
}
