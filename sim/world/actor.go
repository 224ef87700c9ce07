package world

import (
	"fmt"
	"runtime/debug"
	"sort"
	"strconv"

	"github.com/frameproof/frameproof/sim/trace"
)

type actorState uint8

const (
	stRunnable actorState = iota
	stRunning
	stWaiting
	stSleeping
	stUnwinding // killed, goroutine still parked, waiting to be unwound
	stDone
)

// actor is one simulated thread of control, backed by a goroutine that only
// runs while it holds the baton.
type actor struct {
	seq int64
	// base is the name the actor was started with; its name, unique
	// within the world, is base + "#" + seq (name), made when asked:
	// the trace writes it from base and seq
	base      string
	fullName  string
	proc      *Process
	fn        func()
	state     actorState
	started   bool
	killed    bool
	wake      chan bool // true: continue; false: unwind (killed)
	waitingOn *Future
	sleepGen  uint64
	// schedLabel labels the scheduling choices that pick this actor
	// ("sched " + name), made the first time one does
	schedLabel string
	// who is the actor's proc and actor in its trace records, written the
	// first time it adds one (hasWho)
	who    trace.Who
	hasWho bool
}

// traceWho is a's proc label and name as its trace records write them.
func (a *actor) traceWho() trace.Who {
	if !a.hasWho {
		a.who, a.hasWho = trace.NewWhoSN(a.proc.label, a.base, a.seq), true
	}
	return a.who
}

// name is the actor's name, base + "#" + seq.
func (a *actor) name() string {
	if a.fullName == "" {
		a.fullName = a.base + "#" + strconv.FormatInt(a.seq, 10)
	}
	return a.fullName
}

// schedName is "sched " + a.name(), written without making the name.
func (a *actor) schedName() string {
	var buf [64]byte
	b := append(buf[:0], "sched "...)
	b = append(b, a.base...)
	b = append(b, '#')
	b = strconv.AppendInt(b, a.seq, 10)
	return string(b)
}

// nameField is the actor's name as a trace detail, without making it.
func (a *actor) nameField(k string) trace.Field { return trace.SN(k, a.base, a.seq) }

// killedSentinel is the panic value that unwinds a killed actor.
type killedSentinel struct{}

var killSentinel any = &killedSentinel{}

func (w *World) newActor(p *Process, name string, fn func()) *actor {
	w.actorSeq++
	a := &actor{
		seq:  w.actorSeq,
		base: name,
		proc: p,
		fn:   fn,
		wake: make(chan bool),
	}
	w.actors = append(w.actors, a)
	w.makeRunnable(a)
	return a
}

// Go starts fn as a new runnable actor. From inside an actor the new actor
// joins the caller's process; otherwise it joins Root(). It does not switch
// actors.
func (w *World) Go(name string, fn func()) {
	p := w.root
	if w.current != nil {
		p = w.current.proc
	}
	p.Go(name, fn)
}

func (w *World) makeRunnable(a *actor) {
	a.state = stRunnable
	i := sort.Search(len(w.runnable), func(i int) bool { return w.runnable[i].seq >= a.seq })
	w.runnable = append(w.runnable, nil)
	copy(w.runnable[i+1:], w.runnable[i:])
	w.runnable[i] = a
}

func (w *World) removeRunnable(a *actor) {
	for i, r := range w.runnable {
		if r == a {
			w.runnable = append(w.runnable[:i], w.runnable[i+1:]...)
			return
		}
	}
}

// runActor hands the baton to a and waits until it hands it back.
func (w *World) runActor(a *actor) {
	w.current = a
	a.state = stRunning
	if !a.started {
		a.started = true
		w.start(a)
	} else {
		a.wake <- true
	}
	<-w.back
	w.current = nil
}

// actorMain is the body of an actor, run by worker wk.
func (w *World) actorMain(a *actor, wk *worker) {
	returned := false
	defer func() {
		r := recover()
		if r != nil || returned {
			// not runtime.Goexit: the goroutine lives on, idle until a
			// scheduler hands it the next actor (the baton is still held
			// here, so this world's scheduler sees it idle)
			w.release(wk)
		}
		switch {
		case a.killed:
			// Unwound after a crash (or the end of the run); whatever its
			// deferred code did, a dead actor leaves no trace but this.
			w.tr.AddWho(w.step, int64(w.now), a.traceWho(), "unwound")
		case r != nil:
			w.failActor(a, fmt.Sprint(r), r, string(debug.Stack()))
		case !returned:
			w.failActor(a, "actor exited via runtime.Goexit (t.FailNow or require.* called inside an actor?)", nil, string(debug.Stack()))
		default:
			w.note("done")
		}
		a.state = stDone
		w.finished++
		w.back <- struct{}{}
	}()
	a.fn()
	returned = true
}

func (w *World) failActor(a *actor, text string, value any, stack string) {
	w.note("panic", trace.F("value", text))
	if w.panicErr == nil {
		w.panicErr = &PanicError{Step: w.step, Actor: a.name(), Value: value, Text: text, Stack: stack}
	}
}

// park records act, hands the baton back to the scheduler and blocks until
// the scheduler wakes this actor again. A killed actor unwinds from here.
func (w *World) park(a *actor, act string, kv ...trace.Field) {
	w.note(act, kv...)
	w.back <- struct{}{}
	if !<-a.wake {
		panic(killSentinel)
	}
}

// self returns the running actor, panicking with a clear message when the
// caller is not one (for example the test goroutine before Run).
func (w *World) self(op string) *actor {
	a := w.current
	if a == nil {
		panic("world: " + op + " called outside an actor (on the test goroutine, before or after Run?); " +
			"blocking calls must come from an actor started with Go or Run")
	}
	if a.killed {
		panic(killSentinel)
	}
	return a
}

// Yield is a scheduling point at which the running actor stays runnable:
// the scheduler may pick it again or let another actor run first.
func (w *World) Yield() {
	a := w.self("Yield")
	w.makeRunnable(a)
	w.park(a, "yield")
}

// kill marks a as killed and takes it out of every queue. Its goroutine (if
// it ever started) is unwound by the scheduler before the next step.
func (w *World) kill(a *actor) {
	if a.killed && a.state == stUnwinding || a.state == stDone {
		return
	}
	a.killed = true
	switch a.state {
	case stRunnable:
		w.removeRunnable(a)
	case stWaiting:
		a.waitingOn.removeWaiter(a)
		a.waitingOn = nil
	case stSleeping:
		a.sleepGen++ // its timer entry goes stale
	}
	if a.started {
		a.state = stUnwinding
		w.unwind = append(w.unwind, a)
	} else {
		a.state = stDone
		w.finished++
		w.tr.AddWho(w.step, int64(w.now), a.traceWho(), "unwound")
	}
}

// unwindKilled lets every killed goroutine run its unwinding, one at a time,
// in the order they were killed.
func (w *World) unwindKilled() {
	for len(w.unwind) > 0 {
		a := w.unwind[0]
		w.unwind = w.unwind[1:]
		w.current = a
		a.wake <- false
		<-w.back
		w.current = nil
	}
	w.unwind = w.unwind[:0]
}

// compactActors drops finished actors from the creation-order list.
func (w *World) compactActors() {
	if w.finished < 64 || w.finished*2 < len(w.actors) {
		return
	}
	kept := w.actors[:0]
	for _, a := range w.actors {
		if a.state != stDone {
			kept = append(kept, a)
		}
	}
	clear(w.actors[len(kept):])
	w.actors = kept
	w.finished = 0
}
