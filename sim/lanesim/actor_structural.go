package lanesim

import (
	"fmt"
	"time"

	"github.com/frameproof/frameproof/impl/env"
	"github.com/frameproof/frameproof/impl/frames"
	"github.com/frameproof/frameproof/impl/lane"
	"github.com/frameproof/frameproof/impl/pi"
	"github.com/frameproof/frameproof/impl/store"
	"github.com/frameproof/frameproof/sim/campaign"
	"github.com/frameproof/frameproof/sim/choice"
)

// Structural (summary) generation: the seed's "Structural generation scope"
// keeps these streams process-local — no public lifecycle events, nothing
// at a pendingAssistantFrames address (invariant 11). The structural actor
// runs (*Lane).GenerateStructural in the lane process, beside ordinary
// generation and through the same simulated provider, so a crash kills it
// with its stream. Each (op, resp) pair it uses goes into the invariants'
// View.Structural before the request is made, so every later check (after
// each commit, step, restart and at the end) looks for a list there.
//
// Structural streams are invisible to the lockstep model: they bypass the
// ordinary stream bookkeeping (no r.cur, no model provider events, no intent
// check), and the model is fed nothing for them. A commit that touches a
// structural address is not the model's business either: the storage
// wrapper passes it straight to the reference, where invariant 11 rejects it.

// maxStructuralCrashes bounds the crashes aimed at structural streams.
const maxStructuralCrashes = 2

// structuralMutant makes the structural actor append a frame at its
// structural address after each generation (tests only: invariant 11 must
// reject it).
var structuralMutant bool

// structuralMutantLanded counts the mutant's frame appends that committed
// (a crash during the commit's latency can unwind the actor before its
// write reaches storage).
var structuralMutantLanded int

// structuralActor runs the profile's structural generations and owns their
// bookkeeping.
type structuralActor struct {
	r       *runner
	pairs   [][2]string // (op, resp) pairs used, for invariant 11
	keys    map[string]bool
	streams map[string]*structStream
	started int
	done    int
	crashes int
}

// run runs the profile's structural generations, one after another; a
// crash kills it, and the next process's actor carries on with the
// remaining ones.
func (a *structuralActor) run() {
	r := a.r
	ln, gen := r.ln, r.gen
	for a.started < r.p.structural && !r.finished && !r.failed {
		r.pause("structural", 80)
		if r.gen != gen || r.closing || r.finished || r.failed {
			return
		}
		k := a.started
		a.started++
		op := "structural"
		if cur := ln.Current(); cur != nil {
			op = cur.ID // a summary generated inside an operation's scope
		}
		resp := fmt.Sprintf("structural-%d", k)
		a.pairs = append(a.pairs, [2]string{op, resp})
		a.keys[lane.FramesAddr(op, resp).Key] = true
		req := lane.Request{OperationID: op, ResponseEntryID: resp, Attempt: 1,
			Model: lane.ModelRef{Provider: simProvider, ModelID: simModel}}
		m, err := ln.GenerateStructural(req)
		if !r.alive() || r.failed {
			return
		}
		if !r.check(err == nil && m != nil, campaign.KindInvariant, "structural generation %s:%s: message %v, error %v", op, resp, m != nil, err) {
			return
		}
		s := a.streams[resp]
		if !r.check(s != nil && s.want != "", campaign.KindInvariant, "structural generation %s:%s returned without consuming its stream", op, resp) {
			return
		}
		if got := marshalMsg(m); !r.check(got == s.want, campaign.KindInvariant, "structural generation %s:%s returned\n%s\nthe stream ended with\n%s", op, resp, got, s.want) {
			return
		}
		a.done++
		if structuralMutant && !r.brokenStructuralWrite(op, resp, m) {
			return
		}
		r.inv.check("structural generation "+resp, nil, nil)
	}
}

// brokenStructuralWrite is the mutant: it stores the structural message's
// start frame at the structural address, through the storage wrapper.
func (r *runner) brokenStructuralWrite(op, resp string, m *pi.AssistantMessage) bool {
	f, err := frames.NewEncoder().Encode(&pi.Event{Type: pi.EventStart, Partial: m})
	if err != nil || f == nil {
		r.fail(campaign.KindSetup, "structural mutant: encode a start frame: %v", err)
		return false
	}
	raw, err := pi.Marshal(f)
	if err != nil {
		r.fail(campaign.KindSetup, "structural mutant: marshal the frame: %v", err)
		return false
	}
	// An injected storage fault may refuse the write; the mutant tries
	// again, so that it really writes whenever the store still runs.
	for try := 0; try < 5; try++ {
		if _, err = r.st.Commit([]store.Write{store.AppendListRaw(lane.FramesAddr(op, resp), raw)}); err == nil || !r.alive() || r.failed {
			break
		}
	}
	if err == nil {
		structuralMutantLanded++
	}
	return err == nil && !r.failed
}

// writes reports whether a commit touches a structural address.
func (a *structuralActor) writes(ws []store.Write) bool {
	for _, w := range ws {
		if w.Kind == store.WriteList && w.Namespace == lane.NSAssistantFrame && a.keys[w.Key] {
			return true
		}
	}
	return false
}

// structStream is one structural provider response: the same generator as
// ordinary responses, but nothing outside this stream sees its events.
type structStream struct {
	r     *runner
	plan  respPlan
	acc   *pi.AssistantMessage
	queue []queued
	wake  env.Completer
	last  *pi.AssistantMessage // latest consumed partial (the shared accumulator)
	// want is the message GenerateStructural must return, set when the
	// stream's terminal event or transport failure is consumed
	want string
}

// open starts the provider stream of a structural generation.
func (a *structuralActor) open(req lane.Request) lane.Stream {
	r := a.r
	g := r.p.gen
	g.deferred, g.stall = false, false
	s := &structStream{r: r, plan: genPlan(r.w, g),
		acc: &pi.AssistantMessage{Content: []pi.Content{}, API: simAPI, Provider: simProvider, Model: simModel,
			StopReason: pi.StopPending, Timestamp: float64(r.w.Now().UnixMilli())}}
	a.streams[req.ResponseEntryID] = s
	r.w.Go("structural-provider", s.produce)
	return s
}

// produce pushes the plan's events at random pace; sometimes it aims a
// crash at the middle of the stream.
func (s *structStream) produce() {
	r, w := s.r, s.r.w
	for i, b := range s.plan.builders {
		switch choice.Weighted(w, "structural-pace", []int{3, 2, 1}) {
		case 1:
			w.Yield()
		case 2:
			w.Sleep(time.Duration(choice.Range(w, "structural-ms", 1, 20)) * time.Millisecond)
		}
		if r.p.structuralCrash && i > 0 && r.structural.crashes < maxStructuralCrashes && choice.Chance(w, "structural-crash", 1, 4) {
			r.structural.crashes++
			r.w.Root().Go("structural-crasher", func() { r.crashAndRestart("crash during structural generation of", true) })
		}
		s.push(queued{ev: b(s.acc)})
	}
	if s.plan.end == endDisconnect {
		s.push(queued{err: errDisconnect})
	}
}

func (s *structStream) push(q queued) {
	s.queue = append(s.queue, q)
	if s.wake != nil {
		s.wake.Resolve(nil)
		s.wake = nil
	}
}

// Next hands out the oldest queued event and, at the end, records what the
// lane must return: the terminal message, or pi-ai's transport-failure
// error message built from the latest partial.
func (s *structStream) Next() (pi.Event, error) {
	for len(s.queue) == 0 {
		s.wake = s.r.w.NewFuture("structural-next")
		_ = s.wake.Wait()
	}
	q := s.queue[0]
	s.queue = s.queue[1:]
	if q.err != nil {
		var m *pi.AssistantMessage
		if s.last != nil {
			m = s.last.Clone()
		} else {
			m = &pi.AssistantMessage{Content: []pi.Content{}, API: "unknown", Provider: simProvider, Model: simModel,
				Timestamp: float64(s.r.w.Now().UnixMilli())}
		}
		m.StopReason, m.ErrorMessage = pi.StopError, pi.Str(q.err.Error())
		s.want = marshalMsg(m)
		return pi.Event{}, q.err
	}
	ev := q.ev
	if ev.Type == pi.EventDone || ev.Type == pi.EventError {
		s.want = marshalMsg(ev.Message)
		return ev, nil
	}
	if ev.Partial != nil {
		s.last = ev.Partial
	}
	return ev, nil
}
