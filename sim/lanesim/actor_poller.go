package lanesim

import (
	"time"

	"github.com/frameproof/frameproof/impl/lane"
	"github.com/frameproof/frameproof/sim/choice"
)

func (r *runner) takePermit() bool {
	if r.permits > 0 {
		r.permits--
		return true
	}
	return false
}

func (r *runner) waitPermit(cur *lane.Operation) {
	if r.pendingPoll != "" && cur.State.ResponseEntryID == r.pendingPoll {
		r.race(RowPollReplacement, OrderSuspendedWithoutPermit)
		r.pendingPoll = ""
		r.snapshotNow("reconnect without permit")
	}
	if r.permits > 0 || r.finished {
		return
	}
	r.permitWake = r.w.NewFuture("permit")
	_ = r.permitWake.Wait()
}

// poller hands out deferred-poll permits for as long as the run lasts. It
// must not run out: restarts drop process-local permits, and a poller that
// stopped after a fixed count left a driver waiting forever for a permit
// after enough crashes (a harness deadlock, not a lane bug). If operations
// never settle, the world's step budget reports liveness.
func (r *runner) poller() {
	for !r.finished && !r.failed {
		r.w.Sleep(time.Duration(choice.Range(r.w, "poll-ms", 1, 40)) * time.Millisecond)
		r.permits++
		if r.permitWake != nil {
			r.permitWake.Resolve(nil)
			r.permitWake = nil
		}
	}
}
