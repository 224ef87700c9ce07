package lane

import (
	"fmt"

	"github.com/frameproof/frameproof/impl/pi"
	"github.com/frameproof/frameproof/impl/store"
)

// QueueKind is an inbox item's kind (pi's InboxItemKind for queued input).
type QueueKind string

// The kinds Enqueue accepts: runtime/lane.ts steer, followUp and nextRun.
// A cancel request removes queued steer and followUp items (RequestCancel).
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
	_, _, err := l.command("enqueue", func(cur view) (plan, error) {
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
