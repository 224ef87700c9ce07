package lanesim

import (
	"time"

	"github.com/frameproof/frameproof/impl/env"
	"github.com/frameproof/frameproof/impl/lane"
	"github.com/frameproof/frameproof/sim/campaign"
	"github.com/frameproof/frameproof/sim/choice"
)

// listenerActor is the lane's awaited listener: every event goes to the
// checkers that follow events, then the listener acknowledges it at once,
// after a yield or after a sleep, in an actor of its own. It owns which
// live update events it has acknowledged (delivered), which decides the
// order of row RowUpdateCommit.
type listenerActor struct {
	r         *runner
	delivered map[string]map[int]bool // response id -> event index
}

// listenerOf is the listener of lane process gen. The lane delivers its
// events off the line, by whichever caller awaits them, and a caller
// outside the process (the queuer, the canceller) outlives a crash; a lost
// process's event bus dies with it (pi's bus lives in the harness), so what
// such a caller still delivers for it reaches no one.
func (r *runner) listenerOf(gen int) lane.Listener {
	return func(ev lane.Event) env.Future {
		if gen != r.gen {
			return nil
		}
		return r.listener.listen(ev)
	}
}

func (a *listenerActor) listen(ev lane.Event) env.Future {
	r := a.r
	if !r.alive() {
		return nil
	}
	// every pi lane event names its lane (HarnessEvent.lane)
	if ev.Lane != laneName {
		r.fail(campaign.KindInvariant, "a %s event names lane %q, it came from lane %q", ev.Type, ev.Lane, laneName)
		return nil
	}
	r.emitLaneEvent(ev)
	r.noteToolEvent(ev)
	idx := -1
	resp := ""
	if s := r.cur; s != nil && (ev.Type == lane.EvMessageStart || ev.Type == lane.EvMessageUpdate) && !ev.Recovery && ev.Prompt == nil {
		idx, resp = s.consumed-1, s.req.ResponseEntryID
	}
	switch choice.Weighted(r.w, "listener", []int{2, 2, 1}) {
	case 0:
		a.mark(resp, idx)
		return nil
	case 1:
		f := r.w.NewFuture("listener")
		r.w.Go("listener", func() { r.w.Yield(); a.mark(resp, idx); f.Resolve(nil) })
		return f
	default:
		f := r.w.NewFuture("listener")
		r.w.Go("listener", func() {
			r.w.Sleep(time.Duration(choice.Range(r.w, "listener-ms", 1, 10)) * time.Millisecond)
			a.mark(resp, idx)
			f.Resolve(nil)
		})
		return f
	}
}

// mark records that event idx of resp was delivered (idx < 0: an event
// that names no provider event). A method, not a closure: the listener's
// synchronous deliveries allocate nothing for it.
func (a *listenerActor) mark(resp string, idx int) {
	if idx < 0 {
		return
	}
	if a.delivered[resp] == nil {
		a.delivered[resp] = map[int]bool{}
	}
	a.delivered[resp][idx] = true
}
