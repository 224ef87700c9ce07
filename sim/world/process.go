package world

import (
	"fmt"

	"github.com/frameproof/frameproof/impl/env"
	"github.com/frameproof/frameproof/sim/trace"
)

// Process is one incarnation of a program in the world. Its actors die
// together in Crash; a restart is a new Process (Restart) with the same name
// and the next incarnation number.
type Process struct {
	w           *World
	name        string
	incarnation int
	label       string // name@incarnation, used in traces
	alive       bool
	futures     []*Future // futures it owns; resolved ones pruned lazily
}

// NewProcess starts a new, empty, live process. Its incarnation number is
// one more than the number of earlier processes with the same name.
func (w *World) NewProcess(name string) *Process {
	inc := 1
	for _, p := range w.procs {
		if p.name == name {
			inc++
		}
	}
	p := &Process{w: w, name: name, incarnation: inc, label: fmt.Sprintf("%s@%d", name, inc), alive: true}
	w.procs = append(w.procs, p)
	return p
}

// Name returns the process name without incarnation.
func (p *Process) Name() string { return p.name }

// Incarnation returns 1 for the first process of this name, 2 after one
// restart, and so on.
func (p *Process) Incarnation() int { return p.incarnation }

// String returns "name@incarnation".
func (p *Process) String() string { return p.label }

// Alive reports whether the process has not crashed.
func (p *Process) Alive() bool { return p.alive }

// Env returns an env.Env whose Executor is this process (so everything impl
// code spawns lives and dies with it), whose Clock and IDs are the world's,
// and whose FS is fs.
func (p *Process) Env(fs env.FS) env.Env {
	return env.Env{Clock: p.w, FS: fs, IDs: p.w, Executor: p}
}

// Go starts fn as a new runnable actor of this process. It does not switch
// actors. On a crashed process it does nothing (recorded in the trace).
func (p *Process) Go(name string, fn func()) {
	w := p.w
	if w.current != nil && w.current.killed {
		return
	}
	if !p.alive {
		w.note("spawn-ignored", trace.S("name", name), trace.S("process", p.label))
		return
	}
	a := w.newActor(p, name, fn)
	w.note("spawn", a.nameField("child"), trace.S("process", p.label))
}

// NewFuture returns an unresolved future owned by this process: if the
// process crashes first, the future resolves with an error wrapping
// ErrCrashed. On an already crashed process the future is born resolved
// that way.
func (p *Process) NewFuture(name string) env.Completer {
	return p.newFuture(name)
}

func (p *Process) newFuture(name string) *Future {
	w := p.w
	w.futSeq++
	f := &Future{w: w, owner: p, base: name, seq: w.futSeq}
	if !p.alive {
		f.done, f.err = true, p.crashErr()
		return f
	}
	if len(p.futures) >= 64 && len(p.futures)&(len(p.futures)-1) == 0 {
		p.pruneFutures()
	}
	p.futures = append(p.futures, f)
	return f
}

func (p *Process) pruneFutures() {
	kept := p.futures[:0]
	for _, f := range p.futures {
		if !f.done {
			kept = append(kept, f)
		}
	}
	clear(p.futures[len(kept):])
	p.futures = kept
}

func (p *Process) crashErr() error {
	return fmt.Errorf("%w: %s", ErrCrashed, p.label)
}

// Crash kills every actor of the process at once (see the package doc).
// Called by one of the process's own actors, it does not return: that actor
// is unwound too. Crashing a dead process does nothing.
func (p *Process) Crash() {
	w := p.w
	if !p.alive || (w.current != nil && w.current.killed) {
		return
	}
	p.alive = false
	w.note("crash", trace.S("process", p.label))
	self := false
	for _, a := range w.actors {
		if a.proc != p || a.state == stDone {
			continue
		}
		if a == w.current {
			self = true
			a.killed = true
			continue
		}
		w.kill(a)
	}
	err := p.crashErr()
	for _, f := range p.futures {
		if !f.done {
			f.resolve(err)
		}
	}
	p.futures = nil
	if self {
		panic(killSentinel)
	}
}

// Restart crashes the process if it is still alive and returns the next
// incarnation (a new, empty process with the same name).
func (p *Process) Restart() *Process {
	p.Crash()
	return p.w.NewProcess(p.name)
}

// Actors returns the names of the process's live actors (not finished, not killed),
// in creation order.
func (p *Process) Actors() []string {
	var out []string
	for _, a := range p.w.actors {
		if a.proc == p && !a.killed && a.state != stDone {
			out = append(out, a.name())
		}
	}
	return out
}
