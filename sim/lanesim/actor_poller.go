package lanesim

import (
	"time"

	"github.com/frameproof/frameproof/impl/env"
	"github.com/frameproof/frameproof/impl/lane"
	"github.com/frameproof/frameproof/sim/choice"
)

// pollerActor hands out deferred-poll permits and owns everything about
// them: the permits the current lane process holds, the driver's wait for
// one, the deferred effect_pending the last restart restored (row
// RowPollReplacement) and the crashes aimed at deferred polls.
type pollerActor struct {
	r       *runner
	permits int
	wake    env.Completer
	pending string // deferred effect_pending restored by the last restart
	crashes int    // crashes aimed at deferred polls so far (≤ maxPollCrashes)
}

// restart drops the process-local permits: a restarted poller may or may
// not hold one.
func (a *pollerActor) restart() {
	r := a.r
	a.permits = 0
	if r.p.deferred && r.gen > 1 && choice.Bool(r.w, "restart-permit") {
		a.permits = 1
	}
}

func (a *pollerActor) take() bool {
	if a.permits > 0 {
		a.permits--
		return true
	}
	return false
}

func (a *pollerActor) wait(cur *lane.Operation) {
	r := a.r
	if a.pending != "" && cur.State.ResponseEntryID == a.pending {
		r.race(RowPollReplacement, OrderSuspendedWithoutPermit)
		a.pending = ""
		r.snapshotNow("reconnect without permit")
	}
	if a.permits > 0 || r.finished {
		return
	}
	a.wake = r.w.NewFuture("permit")
	_ = a.wake.Wait()
}

// grant hands the driver one deferred-poll permit and wakes it.
func (a *pollerActor) grant() {
	a.permits++
	if a.wake != nil {
		a.wake.Resolve(nil)
		a.wake = nil
	}
}

// release wakes a driver still waiting for a permit at the end of the run.
func (a *pollerActor) release() {
	if a.wake != nil {
		a.wake.Resolve(nil)
	}
}

// run hands out deferred-poll permits for as long as the run lasts. It
// must not run out: restarts drop process-local permits, and a poller that
// stopped after a fixed count left a driver waiting forever for a permit
// after enough crashes (a harness deadlock, not a lane bug). If operations
// never settle, the world's step budget reports liveness.
func (a *pollerActor) run() {
	r := a.r
	for !r.finished && !r.failed {
		r.w.Sleep(time.Duration(choice.Range(r.w, "poll-ms", 1, 40)) * time.Millisecond)
		a.grant()
	}
}
