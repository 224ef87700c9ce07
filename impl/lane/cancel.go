package lane

import (
	"fmt"

	"github.com/frameproof/frameproof/impl/pi"
	"github.com/frameproof/frameproof/impl/store"
)

// RequestCancel durably marks the current operation cancel_requested, as
// pi's requestOperationAbort (runtime/lane.ts) does for it. Like pi it
// first begins the abort of the current operation's drive synchronously, so
// an effect not yet admitted is never started (the step awaits this command
// and the next step reconciles); once the command completed it signals the
// drive's abort (Request.Abort, retry waits).
//
// The TX: delete the pending entries of queued steer and followUp items,
// set the op state, set the lane state without those items. Its batch is
// operation_abort {operationId, steer, followUp} with the removed messages,
// then queue_update with the remaining queues when an item was removed.
//
// A request that finds the operation already cancel_requested commits and
// emits nothing and still signals the drive's abort (pi's repeat path,
// newlyRequested false). With no current operation it commits and emits
// nothing and returns nil: pi's requestOperationAbort takes the operation's
// id and answers a mismatch there, a result error rather than a throw; this
// lane's request names no operation, so there is nothing to mismatch.
func (l *Lane) RequestCancel() error {
	_, err := l.requestCancel("")
	return err
}

// Aborted is the value of pi's Lane.abort: the operation it aborted and the
// queued steer and followUp messages its cancel request removed (empty when
// the operation was already cancel_requested).
type Aborted struct {
	OperationID     string
	Steer, FollowUp []pi.JSONValue
}

// Abort is pi's public Lane.abort (runtime/lane.ts abort), in its order:
//  1. it reads the current operation's id on the mutation line, so the read
//     waits behind every command already queued there (parked commits,
//     frame appends): nothing of the abort happens before its turn;
//  2. it requests the abort of that operation (requestOperationAbort with
//     the operation's id: the drive's abort begins, the cancel command is
//     queued behind whatever the line took meanwhile);
//  3. it drives the operation (Lane.drive {operationId}: no retry wait, no
//     deferred poll), so it returns once the drive settled it.
//
// With no current operation it returns ErrNoOperation, pi's
// NoActiveOperation, as it does when the operation read is no longer
// current at the request's turn. RequestCancel is step 2 alone.
func (l *Lane) Abort() (Aborted, error) {
	if err := l.usable(); err != nil {
		return Aborted{}, err
	}
	var op string
	if _, _, err := l.command(CmdAbortRead, func(cur view) (plan, error) {
		if cur.op != nil {
			op = cur.op.ID
		}
		return plan{}, nil
	}); err != nil {
		return Aborted{}, err
	}
	if op == "" {
		return Aborted{}, fmt.Errorf("%w: lane %q has no active operation", ErrNoOperation, l.cfg.Name)
	}
	a, err := l.requestCancel(op)
	if err != nil {
		return Aborted{}, err
	}
	if a.OperationID == "" {
		return Aborted{}, fmt.Errorf("%w: lane %q no longer has the inspected operation", ErrNoOperation, l.cfg.Name)
	}
	if _, err := l.driveOperation(op, StepOptions{}); err != nil {
		return Aborted{}, err
	}
	return a, nil
}

// requestCancel is requestOperationAbort for operation op, or for the
// current operation when op is "". Its value names the operation it found
// (none: no current operation, or another than op) and the messages it
// removed.
func (l *Lane) requestCancel(op string) (Aborted, error) {
	if err := l.usable(); err != nil {
		return Aborted{}, err
	}
	cancellation := l.beginAbort(op)
	var a Aborted
	fut, out := l.commandAsync(CmdCancel, func(cur view) (plan, error) {
		if cur.op == nil || op != "" && cur.op.ID != op {
			return plan{}, nil
		}
		a.OperationID = cur.op.ID
		if cur.op.State.Control.CancelRequested {
			return plan{}, nil
		}
		p, req, err := l.cancelPlan(cur)
		a.Steer, a.FollowUp = req.steer, req.followUp
		return p, err
	})
	// pi settles the gate and signals the drive in the command's
	// materialize, before its batch is delivered: a listener handling
	// operation_abort already sees the stream aborted
	err := fut.Wait()
	if cancellation != nil {
		cancellation.Resolve(err)
	}
	if err != nil {
		return Aborted{}, err
	}
	// settleGate: signal on a new or a repeated request for the operation
	if a.OperationID != "" {
		l.signalAbort(a.OperationID)
	}
	l.awaitDelivery(out.delivery)
	return a, nil
}

// cancelPlan is requestOperationAbort's commit for the current operation.
func (l *Lane) cancelPlan(cur view) (plan, abortRequest, error) {
	req, err := l.readAbortRequest(cur.laneState.Inbox)
	if err != nil {
		return plan{}, req, err
	}
	next := cur.clone()
	next.op.State = next.op.State.Clone()
	next.op.State.Control = Control{CancelRequested: true, RequestedAt: l.now()}
	next.laneState.Inbox = req.kept
	var writes []store.Write
	for _, it := range req.removed {
		writes = append(writes, store.DeleteValueRaw(PendingEntryAddr(it.id)))
	}
	writes = append(writes, store.SetValueRaw(OpStateAddr(cur.op.ID), MarshalState(next.op.State)),
		store.SetValueRaw(LaneStateAddr(l.cfg.Name), next.laneState.raw()))
	evs := req.events(cur.op.ID)
	return plan{commit: true, writes: writes, next: next, events: func(store.CommitResult) []Event { return evs }}, req, nil
}

// abortRequest is what requestOperationAbort reads on the line: the queued
// steer and followUp items it removes, their messages by kind (in inbox
// order), the inbox without them and the queues that remain.
type abortRequest struct {
	kept            pi.JSONValue
	removed         []queuedItem
	steer, followUp []pi.JSONValue
	queues          pi.JSONValue
}

// readAbortRequest reads the removed items' messages first (a pending
// entry missing or not a message is pi's invariant error, which faults),
// then the remaining queues (readLaneQueues), in pi's order.
func (l *Lane) readAbortRequest(inbox pi.JSONValue) (abortRequest, error) {
	kept, removed, err := splitSteering(inbox)
	if err != nil {
		return abortRequest{}, err
	}
	req := abortRequest{kept: kept, removed: removed, steer: []pi.JSONValue{}, followUp: []pi.JSONValue{}}
	for _, it := range removed {
		msg, err := l.removedMessage(it)
		if err != nil {
			return abortRequest{}, err
		}
		if it.kind == "steer" {
			req.steer = append(req.steer, msg)
		} else {
			req.followUp = append(req.followUp, msg)
		}
	}
	if req.queues, err = l.laneQueues(kept); err != nil {
		return abortRequest{}, err
	}
	return req, nil
}

// removedMessage is a removed item's message: its pending entry's payload.
func (l *Lane) removedMessage(it queuedItem) (pi.JSONValue, error) {
	stored, err := l.readPending(it, "cancel: ")
	if err != nil {
		return pi.JSONValue{}, err
	}
	var v pi.JSONValue
	if stored != nil {
		if v, err = pi.ParseJSON(string(stored.Value)); err != nil {
			return pi.JSONValue{}, fmt.Errorf("lane: cancel: pending entry %s: %w", it.id, err)
		}
	}
	if !isString(v.Prop("type"), "message") {
		return pi.JSONValue{}, &invariantError{fmt.Sprintf("Pending %s entry %s is missing its message", it.kind, it.id)}
	}
	return v.Prop("payload"), nil
}

// events is the request's batch: operation_abort, then queue_update when
// it removed queued items (runtime/lane.ts requestOperationAbort).
func (req abortRequest) events(op string) []Event {
	evs := []Event{{Type: EvOperationAbort, OperationID: op, Steer: pi.ArrayValue(req.steer), FollowUp: pi.ArrayValue(req.followUp)}}
	if len(req.removed) > 0 {
		evs = append(evs, Event{Type: EvQueueUpdate, Queues: req.queues})
	}
	return evs
}

// splitSteering separates queued steer/followUp items (cancellation removes
// them) from the rest of the inbox, keeping order.
func splitSteering(inbox pi.JSONValue) (kept pi.JSONValue, removed []queuedItem, err error) {
	if inbox.IsUndefined() {
		return inbox, nil, nil
	}
	items, err := readInbox(inbox)
	if err != nil {
		return inbox, nil, fmt.Errorf("lane: cancel: %w", err)
	}
	var keep []pi.JSONValue
	for _, it := range items {
		if it.kind == "steer" || it.kind == "followUp" {
			removed = append(removed, it)
			continue
		}
		keep = append(keep, it.raw)
	}
	return pi.ArrayValue(keep), removed, nil
}
