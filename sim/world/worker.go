package world

import "sync"

// worker is a goroutine that runs actors one after another: an actor
// that finished hands its goroutine, and the stack it grew, to the next one
// instead of exiting. Actors can reach deep stacks (in sim/lanesim a commit
// runs the store and every check under it), and a fresh goroutine grows its
// stack by copying it, doubling at a time: that copying was about 7% of a
// simulator campaign's CPU. Idle workers belong to one world and end with
// its Run, unless the world shares a pool (Options.Workers).
type worker struct {
	jobs   chan job // the next actor to run; closed: exit
	exited chan struct{}
	// retire: its pool was full when it went idle, so it ends after the
	// actor it ran (written and read by the worker's own goroutine)
	retire bool
}

// job is one actor for a worker to run, with its world.
type job struct {
	w *World
	a *actor
}

// Workers is a pool of idle actor goroutines that worlds share
// (Options.Workers): the goroutines of one run, and the stacks they grew,
// serve the next run's world instead of ending with the first. Worlds that
// run at once may share it. At most max goroutines wait in it, for as long
// as the process lives.
type Workers struct {
	mu   sync.Mutex
	idle []*worker
	max  int
}

// NewWorkers returns a pool that keeps at most max idle goroutines.
func NewWorkers(max int) *Workers { return &Workers{max: max} }

func (p *Workers) get() *worker {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := len(p.idle)
	if n == 0 {
		return nil
	}
	wk := p.idle[n-1]
	p.idle = p.idle[:n-1]
	return wk
}

// put keeps wk for a later actor, or reports false when the pool is full.
func (p *Workers) put(wk *worker) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.idle) >= p.max {
		return false
	}
	p.idle = append(p.idle, wk)
	return true
}

// start runs a on an idle worker, or on a new one.
func (w *World) start(a *actor) {
	var wk *worker
	if p := w.opts.Workers; p != nil {
		wk = p.get()
	} else if n := len(w.idle); n > 0 {
		wk = w.idle[n-1]
		w.idle = w.idle[:n-1]
	}
	if wk != nil {
		wk.jobs <- job{w, a}
		return
	}
	wk = &worker{jobs: make(chan job), exited: make(chan struct{})}
	w.workers++
	go work(wk, job{w, a}, w.opts.DeepActors)
}

// release makes wk, whose actor just finished (not by runtime.Goexit: that
// takes the goroutine with it), idle.
func (w *World) release(wk *worker) {
	if p := w.opts.Workers; p != nil {
		wk.retire = !p.put(wk)
		return
	}
	w.idle = append(w.idle, wk)
}

// work runs actors until its world stops it or its pool is full.
func work(wk *worker, j job, deep bool) {
	defer close(wk.exited)
	if deep {
		presizeStack()
	}
	for ; j.a != nil; j = <-wk.jobs {
		j.w.actorMain(j.a, wk)
		if wk.retire {
			return
		}
	}
}

// presizeStack grows a new worker's stack to 64 KB in one copy, while it
// is still shallow (Options.DeepActors).
//
//go:noinline
func presizeStack() {
	var frame [presizeFrame]byte
	touch(frame[:])
}

// touch keeps presizeStack's frame from being optimized away.
//
//go:noinline
func touch(b []byte) { b[len(b)-1] = 1 }

// presizeFrame is a frame that does not fit 32 KB with the stack guard,
// so the stack grows to 64 KB.
const presizeFrame = 30 << 10

// stopWorkers ends this world's idle workers (not a shared pool's) and
// waits until their goroutines are gone.
func (w *World) stopWorkers() {
	for _, wk := range w.idle {
		close(wk.jobs)
		<-wk.exited
	}
	w.idle = nil
}
