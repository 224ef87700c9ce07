package lanesim

import (
	"time"

	"github.com/frameproof/frameproof/impl/env"
	"github.com/frameproof/frameproof/impl/lane"
	"github.com/frameproof/frameproof/sim/choice"
)

func (r *runner) listener(ev lane.Event) env.Future {
	if !r.alive() {
		return nil
	}
	r.ls.onEvent(ev)
	r.inv.logEvent(ev)
	r.client.event(ev)
	idx := -1
	resp := ""
	if s := r.cur; s != nil && (ev.Type == lane.EvMessageStart || ev.Type == lane.EvMessageUpdate) && !ev.Recovery {
		idx, resp = s.consumed-1, s.req.ResponseEntryID
	}
	mark := func() {
		if idx >= 0 {
			if r.delivered[resp] == nil {
				r.delivered[resp] = map[int]bool{}
			}
			r.delivered[resp][idx] = true
		}
	}
	switch choice.Weighted(r.w, "listener", []int{2, 2, 1}) {
	case 0:
		mark()
		return nil
	case 1:
		f := r.w.NewFuture("listener")
		r.w.Go("listener", func() { r.w.Yield(); mark(); f.Resolve(nil) })
		return f
	default:
		f := r.w.NewFuture("listener")
		r.w.Go("listener", func() {
			r.w.Sleep(time.Duration(choice.Range(r.w, "listener-ms", 1, 10)) * time.Millisecond)
			mark()
			f.Resolve(nil)
		})
		return f
	}
}
