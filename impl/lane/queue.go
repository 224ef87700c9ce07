package lane

import (
	"fmt"
	"slices"

	"github.com/frameproof/frameproof/impl/pi"
	"github.com/frameproof/frameproof/impl/store"
)

// QueueKind is an inbox item's kind (pi's InboxItemKind for queued input).
type QueueKind string

// The kinds Enqueue accepts: runtime/lane.ts steer, followUp and nextRun.
// A cancel request removes queued steer and followUp items (RequestCancel);
// CancelQueued removes one item of any kind.
const (
	QueueSteer    QueueKind = "steer"
	QueueFollowUp QueueKind = "followUp"
	QueueNextRun  QueueKind = "nextRun"
)

// Enqueue queues a user text message on the lane's inbox, as pi's
// Lane.enqueue (runtime/lane.ts) does: one transaction sets the pending
// entry {type:"message", payload: message} under a fresh entry id, then the
// lane state with {entryId, kind} appended to its inbox. It returns the
// entry id. The message is pi's string form: {role:"user",
// content:[{type:"text", text}], timestamp}. Its batch is pi's
// queue_update with the queues before it plus the new item.
func (l *Lane) Enqueue(kind QueueKind, text string) (string, error) {
	switch kind {
	case QueueSteer, QueueFollowUp, QueueNextRun:
	default:
		return "", fmt.Errorf("lane: enqueue: unknown kind %q", kind)
	}
	if err := l.usable(); err != nil {
		return "", err
	}
	if text == "" {
		// pi's InvalidMessage "empty"
		return "", fmt.Errorf("lane: enqueue: Queued input must contain text or an image")
	}
	// pi enqueues on an acquired lane only (Harness.lane first)
	if err := l.acquire(l.seedConfiguration(Configuration{}), false); err != nil {
		return "", err
	}
	at := l.now()
	id := l.cfg.IDs.NewID()
	message := jobj("role", "user", "content", pi.ArrayValue([]pi.JSONValue{jobj("type", "text", "text", text)}), "timestamp", at)
	_, _, err := l.command(CmdEnqueue, func(cur view) (plan, error) {
		if inbox := cur.laneState.Inbox; !inbox.IsUndefined() && inbox.Kind() != pi.Array {
			return plan{}, fmt.Errorf("lane: enqueue: lane state inbox is not an array")
		}
		queues, err := l.laneQueues(cur.laneState.Inbox)
		if err != nil {
			return plan{}, err
		}
		queued := jobj("entryId", id, "kind", string(kind), "type", "message", "message", message)
		queues = pi.ArrayValue(append(queues.Array(), queued))
		next := cur.clone()
		items := append([]pi.JSONValue(nil), cur.laneState.Inbox.Array()...)
		next.laneState.Inbox = pi.ArrayValue(append(items, jobj("entryId", id, "kind", string(kind))))
		writes := []store.Write{
			store.SetValueRaw(valueAddr(NSPendingEntry, id), jobj("type", "message", "payload", message).AppendJSON(nil)),
			store.SetValueRaw(LaneStateAddr(l.cfg.Name), next.laneState.raw()),
		}
		return plan{commit: true, writes: writes, next: next, events: func(store.CommitResult) []Event {
			return []Event{{Type: EvQueueUpdate, Queues: queues}}
		}}, nil
	})
	if err != nil {
		return "", err
	}
	return id, nil
}

// CancelQueuedResult is what CancelQueued did (pi's CancelQueuedResult
// kind, runtime/lane.ts cancelQueued).
type CancelQueuedResult string

// CancelQueued's results: the item was removed; it is no longer queued
// because it became an entry (placed at a boundary or a run's acceptance);
// no item and no entry has the id.
const (
	QueueCancelled       CancelQueuedResult = "cancelled"
	QueueAlreadyConsumed CancelQueuedResult = "already_consumed"
	QueueNotFound        CancelQueuedResult = "not_found"
)

// CancelQueued removes the queued inbox item entryID, as pi's
// Lane.cancelQueued (runtime/lane.ts) does, with or without a current
// operation. One transaction deletes the item's pending entry and sets
// the lane state without the item; its batch is queue_update with the
// remaining queues. An id the inbox does not hold commits nothing and is
// QueueAlreadyConsumed when an entry has it, else QueueNotFound. A queued
// item without a pending entry is pi's invariant error `Queued <kind>
// entry <id> is missing its payload`, which faults the lane.
func (l *Lane) CancelQueued(entryID string) (CancelQueuedResult, error) {
	if err := l.usable(); err != nil {
		return "", err
	}
	var result CancelQueuedResult
	_, _, err := l.command(CmdCancelQueued, func(cur view) (plan, error) {
		items, err := readInbox(cur.laneState.Inbox)
		if err != nil {
			return plan{}, err
		}
		i := slices.IndexFunc(items, func(it queuedItem) bool { return it.id == entryID })
		if i == -1 {
			result, err = l.unqueuedResult(entryID)
			return plan{}, err
		}
		result = QueueCancelled
		return l.cancelQueuedPlan(cur, items, items[i])
	})
	if err != nil {
		return "", err
	}
	return result, nil
}

// unqueuedResult is cancelQueued's answer for an id the inbox does not
// hold: already_consumed when an entry has it (reader.getEntries).
func (l *Lane) unqueuedResult(entryID string) (CancelQueuedResult, error) {
	entries, err := store.GetEntriesOf(l.cfg.Storage, []string{entryID})
	if err != nil {
		return "", fmt.Errorf("lane: cancel queued: read entries: %w", err)
	}
	if entries.Len() > 0 {
		return QueueAlreadyConsumed, nil
	}
	return QueueNotFound, nil
}

// cancelQueuedPlan removes it from the inbox items: its pending entry must
// be stored; the remaining queues are read after (pi's order).
func (l *Lane) cancelQueuedPlan(cur view, items []queuedItem, it queuedItem) (plan, error) {
	stored, err := l.readPending(it, "cancel queued: ")
	if err != nil {
		return plan{}, err
	}
	if stored == nil {
		return plan{}, &invariantError{fmt.Sprintf("Queued %s entry %s is missing its payload", it.kind, it.id)}
	}
	kept := withoutItems(items, []queuedItem{it})
	queues, err := l.laneQueues(kept)
	if err != nil {
		return plan{}, err
	}
	next := cur.clone()
	next.laneState.Inbox = kept
	writes := []store.Write{store.DeleteValueRaw(PendingEntryAddr(it.id)), store.SetValueRaw(LaneStateAddr(l.cfg.Name), next.laneState.raw())}
	return plan{commit: true, writes: writes, next: next, events: func(store.CommitResult) []Event {
		return []Event{{Type: EvQueueUpdate, Queues: queues}}
	}}, nil
}
