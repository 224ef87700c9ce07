package world

import (
	"strconv"

	"github.com/frameproof/frameproof/impl/env"
	"github.com/frameproof/frameproof/sim/trace"
)

// Future is the world's env.Completer. Its name in traces is "name#n".
type Future struct {
	w       *World
	owner   *Process
	base    string // the name is base + "#" + seq (name), made when asked
	seq     int64
	done    bool
	err     error
	waiters []*actor
	// first backs waiters for its first waiter (most futures have one at
	// most), so that waiting allocates nothing
	first [1]*actor
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
func (f *Future) Name() string { return f.name() }

func (f *Future) name() string { return f.base + "#" + strconv.FormatInt(f.seq, 10) }

// traceName is the name as a trace detail, without making the string.
func (f *Future) traceName() trace.Field { return trace.SN("future", f.base, f.seq) }

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
	if w.current == nil {
		w.self("Future.Wait(" + f.name() + ")") // panics with the name
	}
	a := w.self("Future.Wait")
	a.state = stWaiting
	a.waitingOn = f
	if f.waiters == nil {
		f.waiters = f.first[:0]
	}
	f.waiters = append(f.waiters, a)
	w.park(a, "wait", f.traceName())
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
	f.waiters, f.first[0] = nil, nil
	if err != nil {
		w.note("resolve", f.traceName(), trace.F("err", err))
	} else {
		w.note("resolve", f.traceName())
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
