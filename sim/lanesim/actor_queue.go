package lanesim

import (
	"errors"
	"fmt"
	"slices"

	"github.com/frameproof/frameproof/impl/lane"
	"github.com/frameproof/frameproof/impl/pi"
	"github.com/frameproof/frameproof/impl/store"
	ml "github.com/frameproof/frameproof/model/lane"
	"github.com/frameproof/frameproof/sim/campaign"
	"github.com/frameproof/frameproof/sim/choice"
	"github.com/frameproof/frameproof/sim/world"
)

// queueKinds are the inputs the queuer queues (runtime/lane.ts steer,
// followUp, nextRun); a cancel request removes the first two.
var queueKinds = []lane.QueueKind{lane.QueueSteer, lane.QueueFollowUp, lane.QueueNextRun}

// rowCancelQueued records what the queuer's CancelQueued calls answered
// (lane.QueueCancelled, QueueAlreadyConsumed, QueueNotFound), each
// compared with the model's answer at the call's turn.
const rowCancelQueued = "cancel-queued"

// queuer queues up to three steer, followUp or nextRun messages at random
// times, beside the canceller, so that cancellation's removal of queued
// steering (and the rest of the inbox surviving it) is compared with the
// model's transaction and state. After some of them it cancels one queued
// item by id (runtime/lane.ts cancelQueued): one it queued, which may be
// queued still, placed already or removed by a cancel, or an id nobody
// queued.
func (r *runner) queuer() {
	var ids []string
	for n := choice.Range(r.w, "queue count", 0, 3); n > 0; n-- {
		r.pause("queue", 100)
		if r.finished || r.failed || r.closing {
			return
		}
		kind := choice.Pick(r.w, "queue kind", queueKinds)
		id, err := r.ln.Enqueue(kind, "queued "+string(kind))
		if !r.queueCallOK("enqueue "+string(kind), err) {
			return
		}
		if err == nil {
			ids = append(ids, id)
		}
		if choice.Chance(r.w, "cancel queued", 1, 3) && !r.cancelQueued(ids) {
			return
		}
	}
}

// queueCallOK reports whether the queuer goes on after a lane call's err:
// a crash or a close ends the call, not the actor; a fault is the
// driver's to report; any other error fails the run.
func (r *runner) queueCallOK(what string, err error) bool {
	if err == nil || errors.Is(err, world.ErrCrashed) || errors.Is(err, lane.ErrClosed) {
		return true
	}
	var hf *lane.HarnessFault
	if !errors.As(err, &hf) {
		r.fail(campaign.KindInvariant, "%s: %v", what, err)
	}
	return false
}

// cancelQueued cancels one of ids, or an id nobody queued, after a pause,
// and checks the answer against the model's at the call's turn.
func (r *runner) cancelQueued(ids []string) bool {
	r.pause("cancel queued", 100)
	if r.finished || r.failed || r.closing {
		return false
	}
	id := "never-queued"
	if len(ids) > 0 && choice.Chance(r.w, "cancel a queued id", 3, 4) {
		id = choice.Pick(r.w, "cancel queued id", ids)
	}
	req := &unqueueReq{id: id}
	r.ls.unqueues = append(r.ls.unqueues, req)
	got, err := r.ln.CancelQueued(id)
	// a call refused before the line (a closed or faulted lane) never has
	// a turn: forget it, so a later call's turn is not taken for it
	r.ls.unqueues = slices.DeleteFunc(r.ls.unqueues, func(q *unqueueReq) bool { return q == req })
	if !r.queueCallOK("cancel queued "+id, err) {
		return false
	}
	if err == nil && req.turned {
		r.race(rowCancelQueued, string(got))
		r.check(string(got) == req.want, campaign.KindModelMismatch, "cancel queued %s: the lane answered %s, the model %s", id, got, req.want)
	}
	return true
}

// unqueueReq is one CancelQueued call: its id and, once its command had its
// turn on the line, the model's answer.
type unqueueReq struct {
	id, want string
	turned   bool
}

// popUnqueue is the oldest CancelQueued call whose command is at its turn.
func (ls *lockstep) popUnqueue() *unqueueReq {
	if len(ls.unqueues) == 0 {
		return nil
	}
	req := ls.unqueues[0]
	ls.unqueues = ls.unqueues[1:]
	return req
}

// unqueueInput is the model input a cancel-queued commit stands for: the
// model removes the call's item and must answer "cancelled".
func (ls *lockstep) unqueueInput(ws []store.Write) func() error {
	req := ls.popUnqueue()
	return func() error {
		if req == nil {
			return fmt.Errorf("a cancel-queued commit that nobody issued: %s", describeWrites(ws))
		}
		req.want, req.turned = ls.m.CancelQueued(req.id), true
		if req.want != string(lane.QueueCancelled) {
			return fmt.Errorf("cancel queued %s committed %s; the model answers %s without a commit", req.id, describeWrites(ws), req.want)
		}
		return nil
	}
}

// unqueueDeclined: a cancel-queued command had its turn and committed
// nothing; unless it failed (a fault, a crash), the model must agree that
// the id was not queued.
func (ls *lockstep) unqueueDeclined(err error) {
	req := ls.popUnqueue()
	if req == nil || err != nil {
		return
	}
	req.want, req.turned = ls.m.CancelQueued(req.id), true
	ls.m.TakeTX() // no transaction to compare
	if req.want == string(lane.QueueCancelled) {
		ls.r.fail(campaign.KindModelMismatch, "cancel queued %s committed nothing; the model removes the queued item", req.id)
	}
}

// queueSettings are the runs' settings.steeringMode and followUpMode
// members: pi's default ("one-at-a-time", written as no member) or "all",
// chosen from the profile without a draw of its own (steering "all" when
// the retry policy allows an even number of attempts, followUps "all" when
// the profile starts an even number of operations), so both of each
// mode's placements are compared with the model.
func (p profile) queueSettings() string {
	out := ""
	if p.maxAttempts%2 == 0 {
		out += `,"steeringMode":"all"`
	}
	if p.ops%2 == 0 {
		out += `,"followUpMode":"all"`
	}
	return out
}

// enqueueInput is the model input an enqueue commit stands for: its pending
// entry's id and the kind of the inbox item it appended.
func enqueueInput(ls *lockstep, ws []store.Write) func() error {
	var id, message string
	for _, w := range ws {
		if w.Kind == store.WriteValue && w.Namespace == lane.NSPendingEntry && w.Op == store.OpSet {
			id = w.Key
			// the queued message (the queuer's input) is what its
			// placement must commit as the entry's message
			if v, err := pi.ParseJSON(string(w.Value)); err == nil {
				message = ml.Canonical(v.Prop("payload").AppendJSON(nil))
			}
		}
	}
	for _, w := range ws {
		if w.Kind == store.WriteValue && w.Namespace == lane.NSLaneState && w.Op == store.OpSet {
			v, err := pi.ParseJSON(string(w.Value))
			var items []pi.JSONValue
			if err == nil && v.Kind() == pi.Object {
				inbox, _ := v.ObjectValue().Get("inbox")
				items = inbox.Array()
			}
			if len(items) == 0 || items[len(items)-1].Kind() != pi.Object {
				return func() error { return fmt.Errorf("enqueue commit without an inbox item: %s", describeWrites(ws)) }
			}
			kind, _ := items[len(items)-1].ObjectValue().Get("kind")
			return func() error { return ls.m.Enqueue(id, kind.Str(), message) }
		}
	}
	return func() error { return fmt.Errorf("enqueue commit without a lane state: %s", describeWrites(ws)) }
}
