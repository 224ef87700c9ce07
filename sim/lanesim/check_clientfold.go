package lanesim

import (
	"slices"

	"github.com/frameproof/frameproof/impl/lane"
	"github.com/frameproof/frameproof/impl/pi"
	ml "github.com/frameproof/frameproof/model/lane"
	"github.com/frameproof/frameproof/sim/campaign"
)

// clientFoldChecker is a watching client: a capture folded with every event
// since (pi's reduceLaneSnapshot), checked after every step. Its events
// are folded after the lockstep model's comparison and the invariants'
// log; neither reads the other, so the order is free.
type clientFoldChecker struct {
	r    *runner
	fold *lane.ClientFold
	// open counts this process's streams that delivered a pending
	// message_start and no message_end yet.
	open int
	// captured: the fold still shows the reduction its capture read (an
	// orphaned response no stream has replaced yet).
	captured bool
	// early are the queue_update and operation_abort events delivered
	// before the client started: the queuer and the canceller run beside a
	// restart, so theirs may reach the listener while the reopened lane is
	// captured. pi's watch buffers from before its capture; queue_update
	// replaces the queues and operation_abort only marks its operation
	// aborting, so folding them after the capture, in order, is safe.
	early []lane.Event
}

// restart forgets the client of a dead process.
func (c *clientFoldChecker) restart() {
	c.fold, c.open, c.early = nil, 0, nil
}

// start starts a watching client on ln from a fresh capture.
func (c *clientFoldChecker) start(ln *lane.Lane) bool {
	cp, err := ln.Capture()
	if err != nil {
		c.r.captureFailed(ln, "client capture", err)
		return false
	}
	c.fold, c.captured = lane.NewClientFold(cp), cp.StreamingMessage != nil
	for _, ev := range c.early {
		c.fold.Apply(ev)
	}
	c.early = nil
	return true
}

// reopened starts the client of a reopened lane.
func (c *clientFoldChecker) reopened(ln *lane.Lane, _ *lane.Snapshot) bool { return c.start(ln) }

// laneEvent folds a lane event into the client's view.
func (c *clientFoldChecker) laneEvent(ev lane.Event) {
	switch {
	case c.fold != nil:
		c.fold.Apply(ev)
	case ev.Type == lane.EvQueueUpdate || ev.Type == lane.EvOperationAbort:
		c.early = append(c.early, ev)
	}
	switch {
	case ev.Type == lane.EvMessageStart || ev.Type == lane.EvMessageUpdate || ev.Type == lane.EvMessageEnd:
		c.captured = false
	}
	switch {
	case ev.Type == lane.EvMessageStart && ev.Message != nil && ev.Message.StopReason == pi.StopPending:
		c.open++
	case ev.Type == lane.EvMessageEnd && !ev.Synthetic && ev.Prompt == nil:
		c.open--
	}
}

// check: once every stream of a healthy lane has delivered its
// message_end, a client folding pi's reduceLaneSnapshot shows no streaming
// message; and it follows the lane's current operation, which it learnt
// from a capture or from the operation's run_start. (A fold still showing
// an operation the lane no longer has is not checked: an external
// finalization may have committed and not yet emitted run_end.)
func (c *clientFoldChecker) check(where string) bool {
	r, f := c.r, c.fold
	if f == nil || r.ln.Fault() != nil || r.closing || r.closed {
		return true
	}
	if cur := r.ln.Current(); cur != nil {
		if f.OperationID != cur.ID {
			return r.check(false, campaign.KindInvariant, "%s: the client fold follows operation %q, the lane's current operation is %s (no run_start?)",
				where, f.OperationID, cur.ID)
		}
		r.pass()
	}
	if !c.checkQueues(where) || !c.checkAborting(where) {
		return false
	}
	if c.captured || c.open != 0 {
		return true
	}
	if f.StreamingMessage != nil {
		return r.check(false, campaign.KindInvariant, "%s: the client fold keeps a streaming message after its stream ended:\n%s", where, marshalMsg(f.StreamingMessage))
	}
	return r.pass()
}

// checkQueues: once every handed-over batch was delivered, the fold's
// queued items (its capture's, then each queue_update's: pi's
// reduceLaneSnapshot) are the model's committed inbox, in order. Every
// commit that changes the inbox (an enqueue, a cancel that removed
// steering, a placement) emits queue_update with the queues after it, so a
// missing, early or stale one shows here.
func (c *clientFoldChecker) checkQueues(where string) bool {
	r := c.r
	if r.ls.undelivered != 0 {
		return true
	}
	want := []string{}
	for _, it := range r.ls.m.Inbox() {
		want = append(want, it.Kind+":"+it.EntryID)
	}
	got := []string{}
	for _, q := range c.fold.Queues.Array() {
		id := q.Prop("entryId").Str()
		got = append(got, q.Prop("kind").Str()+":"+id)
		// each item carries its queued message (readLaneQueues), the one
		// its placement will commit
		if msg, ok := r.ls.m.QueuedMessage(id); ok {
			shown := ml.Canonical(q.Prop("message").AppendJSON(nil))
			if shown != msg {
				return r.check(false, campaign.KindInvariant, "%s: the client fold shows queued item %s as %s, it was queued as %s", where, id, shown, msg)
			}
			r.pass()
		}
	}
	if !slices.Equal(got, want) {
		return r.check(false, campaign.KindInvariant, "%s: the client fold shows the queues %v, the lane's inbox is %v", where, got, want)
	}
	return r.pass()
}

// checkAborting: once every handed-over batch was delivered, the fold shows
// the operation it follows "aborting" exactly when the model's committed
// operation is cancel_requested (its capture's status, then the
// operation_abort of the request that marked it: pi's reduceLaneSnapshot).
// A cancel request whose batch lacks operation_abort shows here.
func (c *clientFoldChecker) checkAborting(where string) bool {
	r, f := c.r, c.fold
	if r.ls.undelivered != 0 || f.OperationID == "" {
		return true
	}
	op, cancelled := r.ls.m.Current()
	if op != f.OperationID {
		return true
	}
	if f.Aborting != cancelled {
		return r.check(false, campaign.KindInvariant, "%s: the client fold shows operation %s aborting=%t, its control is cancel_requested=%t", where, op, f.Aborting, cancelled)
	}
	return r.pass()
}
