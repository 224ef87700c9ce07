package lanesim

import (
	"github.com/frameproof/frameproof/impl/lane"
	"github.com/frameproof/frameproof/impl/pi"
	"github.com/frameproof/frameproof/impl/store"
	"github.com/frameproof/frameproof/sim/campaign"
)

// Coverage row of queued input (Outcome.RaceOrders): where a queued item
// left the inbox as an entry.
const (
	rowQueuedInput     = "queued-input"
	orderPlacedAtStart = "captured-by-run-start"
	orderPlacedAtStep  = "placed-at-boundary"
	// orderPlacedSeveral: one commit placed several queued items
	orderPlacedSeveral = "several-in-one-commit"
)

// inboxChecker follows every queued item through the acknowledged commits:
// an item is queued once (its pending entry set with the inbox item
// appended), then leaves the inbox exactly once, placed as an entry or
// removed by a cancel, never both, never twice. Items of one kind leave in
// the order they were queued (pi takes the first steer, followUp or nextRun
// items of the inbox: boundary.ts planBoundaryInbox, runtime/lane.ts
// selectAcceptedInbox, requestOperationAbort), and one placement's entries
// follow inbox order.
type inboxChecker struct {
	r      *runner
	queued map[string]*queuedInput
	order  []string // ids in queue order
}

type queuedInput struct {
	kind  string
	index int
	gone  string // "" queued, "placed" or "removed"
}

func (c *inboxChecker) commit(ev commitEvent) bool {
	if c.queued == nil {
		c.queued = map[string]*queuedInput{}
	}
	inserted := map[string]bool{}
	last := -1
	for _, w := range ev.ws {
		if w.Kind != store.WriteEntry || w.Entry == nil {
			continue
		}
		q := c.queued[w.Entry.ID]
		if q == nil {
			continue
		}
		if q.gone != "" {
			c.r.fail(campaign.KindInvariant, "queued %s %s placed after it was %s", q.kind, w.Entry.ID, q.gone)
			return false
		}
		if q.index < last {
			c.r.fail(campaign.KindInvariant, "queued %s %s placed before an item queued ahead of it in the same commit", q.kind, w.Entry.ID)
			return false
		}
		last = q.index
		inserted[w.Entry.ID] = true
	}
	if len(inserted) > 1 {
		c.r.race(rowQueuedInput, orderPlacedSeveral)
	}
	for _, w := range ev.ws {
		if w.Kind != store.WriteValue || w.Namespace != lane.NSPendingEntry {
			continue
		}
		switch q := c.queued[w.Key]; {
		case w.Op == store.OpSet && q == nil && isQueueCommit(ev.ws):
			c.queued[w.Key] = &queuedInput{kind: lastInboxKind(ev.ws), index: len(c.order)}
			c.order = append(c.order, w.Key)
		case w.Op == store.OpDelete && q != nil:
			if !c.leave(w.Key, q, inserted[w.Key] && startsRun(ev.ws), inserted[w.Key], remainingInbox(ev.ws)) {
				return false
			}
		}
	}
	return true
}

// leave records id leaving the inbox; no item of its kind queued before it
// may remain in the inbox the commit writes. (Only that inbox is read, not
// this checker's idea of what left: a commit a crash kept durable but
// never acknowledged is invisible here.)
func (c *inboxChecker) leave(id string, q *queuedInput, atStart, placed bool, remaining map[string]bool) bool {
	if q.gone != "" {
		c.r.fail(campaign.KindInvariant, "queued %s %s left the inbox twice (already %s)", q.kind, id, q.gone)
		return false
	}
	for _, earlier := range c.order[:q.index] {
		if e := c.queued[earlier]; e.kind == q.kind && remaining[earlier] && placed {
			c.r.fail(campaign.KindInvariant, "queued %s %s placed while %s, queued before it, is still queued", q.kind, id, earlier)
			return false
		}
	}
	q.gone = "removed"
	if placed {
		q.gone = "placed"
		order := orderPlacedAtStep
		if atStart {
			order = orderPlacedAtStart
		}
		c.r.race(rowQueuedInput, order)
	}
	return true
}

// isQueueCommit: an enqueue's commit sets one pending entry and the lane
// state (a tool outcome stages a result as a pending entry too).
func isQueueCommit(ws []store.Write) bool {
	return len(ws) == 2 && ws[1].Kind == store.WriteValue && ws[1].Namespace == lane.NSLaneState
}

// startsRun: the commit is a run's acceptance (it sets the op meta).
func startsRun(ws []store.Write) bool {
	for _, w := range ws {
		if w.Kind == store.WriteValue && w.Namespace == lane.NSOpMeta && w.Op == store.OpSet {
			return true
		}
	}
	return false
}

// remainingInbox is the set of item ids of the lane state a commit writes.
func remainingInbox(ws []store.Write) map[string]bool {
	out := map[string]bool{}
	for _, w := range ws {
		if w.Kind != store.WriteValue || w.Namespace != lane.NSLaneState || w.Op != store.OpSet {
			continue
		}
		if v, err := pi.ParseJSON(string(w.Value)); err == nil {
			for _, it := range v.Prop("inbox").Array() {
				out[it.Prop("entryId").Str()] = true
			}
		}
	}
	return out
}

// lastInboxKind is the kind of the inbox item an enqueue appended.
func lastInboxKind(ws []store.Write) string {
	v, err := pi.ParseJSON(string(ws[len(ws)-1].Value))
	if err != nil {
		return ""
	}
	items := v.Prop("inbox").Array()
	if len(items) == 0 {
		return ""
	}
	return items[len(items)-1].Prop("kind").Str()
}
