package lanesim

import (
	"errors"
	"fmt"

	"github.com/frameproof/frameproof/impl/lane"
	"github.com/frameproof/frameproof/impl/pi"
	"github.com/frameproof/frameproof/impl/store"
	ml "github.com/frameproof/frameproof/model/lane"
	"github.com/frameproof/frameproof/sim/choice"
	"github.com/frameproof/frameproof/sim/world"
)

// queueKinds are the inputs the queuer queues (runtime/lane.ts steer,
// followUp, nextRun); a cancel request removes the first two.
var queueKinds = []lane.QueueKind{lane.QueueSteer, lane.QueueFollowUp, lane.QueueNextRun}

// queuer queues up to three steer, followUp or nextRun messages at random
// times, beside the canceller, so that cancellation's removal of queued
// steering (and the rest of the inbox surviving it) is compared with the
// model's transaction and state.
func (r *runner) queuer() {
	for n := choice.Range(r.w, "queue count", 0, 3); n > 0; n-- {
		r.pause("queue", 100)
		if r.finished || r.failed || r.closing {
			return
		}
		kind := choice.Pick(r.w, "queue kind", queueKinds)
		_, err := r.ln.Enqueue(kind, "queued "+string(kind))
		if err != nil && !errors.Is(err, world.ErrCrashed) && !errors.Is(err, lane.ErrClosed) {
			var hf *lane.HarnessFault
			if errors.As(err, &hf) {
				return // the driver reports or restarts faults
			}
			r.fail("invariant", "enqueue %s: %v", kind, err)
			return
		}
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
