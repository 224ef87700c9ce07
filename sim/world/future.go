package world

import (
	"github.com/frameproof/frameproof/impl/env"
	"github.com/frameproof/frameproof/sim/trace"
)

// Future is the world's env.Completer. Its name in traces is "name#n".
type Future struct {
	w       *World
	owner   *Process
	name    string
	done    bool
	err     error
	waiters []*actor
}

// NewFuture returns an unresolved future owned by the running actor's
// process (Root() outside actors); see Process.NewFuture.
func (w *World) NewFuture(name string) env.Completer {
	p := w.root
	if w.current != nil {
		p = w.current.proc
	}
	return p.newFuture(name)
}

// Name returns the future's trace name.
func (f *Future) Name() string { return f.name }

// Done reports whether the future has resolved.
func (f *Future) Done() bool { return f.done }

// Err returns the resolution error (nil while unresolved or on success).
func (f *Future) Err() error { return f.err }

// Wait returns the future's error once it has resolved. On an unresolved
// future the running actor parks (a scheduling point) until Resolve. Waiting
// on an unresolved future outside an actor panics with a clear message.
func (f *Future) Wait() error {
	if f.done {
		return f.err
	}
	w := f.w
	a := w.self("Future.Wait(" + f.name + ")")
	a.state = stWaiting
	a.waitingOn = f
	f.waiters = append(f.waiters, a)
	w.park(a, "wait", trace.S("future", f.name))
	return f.err
}

// Resolve settles the future; only the first call has an effect. Every
// waiter becomes runnable; the caller keeps running. Calls from the
// unwinding code of a crashed actor are ignored.
func (f *Future) Resolve(err error) {
	if f.done {
		return
	}
	if f.w.current != nil && f.w.current.killed {
		return
	}
	f.resolve(err)
}

func (f *Future) resolve(err error) {
	w := f.w
	f.done, f.err = true, err
	for _, a := range f.waiters {
		a.waitingOn = nil
		w.makeRunnable(a)
	}
	f.waiters = nil
	if err != nil {
		w.note("resolve", trace.S("future", f.name), trace.F("err", err))
	} else {
		w.note("resolve", trace.S("future", f.name))
	}
}

func (f *Future) removeWaiter(a *actor) {
	for i, x := range f.waiters {
		if x == a {
			f.waiters = append(f.waiters[:i], f.waiters[i+1:]...)
			return
		}
	}
}
