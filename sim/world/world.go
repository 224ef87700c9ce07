package world

import (
	"time"

	"github.com/frameproof/frameproof/impl/env"
	"github.com/frameproof/frameproof/sim/choice"
	"github.com/frameproof/frameproof/sim/trace"
)

// DefaultEpoch is where virtual time starts unless Options.Epoch says
// otherwise.
var DefaultEpoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// DefaultMaxSteps is the step budget unless Options.MaxSteps says otherwise.
const DefaultMaxSteps = 1_000_000

// Options tune a World. The zero value is the default.
type Options struct {
	// Epoch is the virtual time at step 0 (default DefaultEpoch).
	Epoch time.Time
	// MaxSteps bounds the scheduler steps of Run; exceeding it is a
	// liveness failure (*BudgetError). Default DefaultMaxSteps.
	MaxSteps int64
	// TimersOnlyWhenIdle stops the scheduler from choosing to advance the
	// clock while some actor is runnable.
	TimersOnlyWhenIdle bool
	// IdleOK makes quiescence with blocked actors a normal end of the run
	// once main has returned (blocked daemons such as a committer waiting
	// for work are fine). Without it that is a *DeadlockError.
	IdleOK bool
	// DeepActors starts each actor goroutine on a 64 KB stack, for actors
	// known to reach deep stacks: a goroutine grows its stack by doubling
	// copies, each walking every frame, so an actor that ends up deep pays
	// several copies of ever deeper stacks instead of one shallow one. It
	// costs 64 KB per goroutine alive at once.
	DeepActors bool
	// Workers, when set, is a pool of actor goroutines shared with other
	// worlds: this world's goroutines outlive its Run, idle in the pool,
	// and serve later worlds' actors with the stacks they grew.
	Workers *Workers
	// Trace receives the step records (default trace.New(): kept in memory
	// and hashed). Pass trace.NewHashOnly() for fast campaign runs.
	Trace *trace.Trace
}

// World is one deterministic simulated world. Create it with New, start
// actors with Go / Process.Go, and drive it with Run.
type World struct {
	src  choice.Source
	opts Options
	tr   *trace.Trace

	epoch time.Time
	now   time.Duration // virtual time since epoch
	step  int64

	actorSeq int64
	futSeq   int64
	idSeq    uint64

	root     *Process
	procs    []*Process
	actors   []*actor // creation order; finished ones compacted away
	finished int      // finished actors still in actors
	runnable []*actor // sorted by seq
	timers   timerHeap
	// woke is advance's scratch: the names of the actors it wakes
	woke    []string
	unwind  []*actor  // killed actors whose goroutines must still unwind
	idle    []*worker // goroutines of finished actors, ready for new ones
	workers int       // goroutines started

	current  *actor
	back     chan struct{}
	main     *actor
	running  bool
	ran      bool
	stopped  bool
	panicErr *PanicError
}

// Compile-time checks that the world plugs into the determinism seam.
var (
	_ env.Executor  = (*World)(nil)
	_ env.Executor  = (*Process)(nil)
	_ env.Clock     = (*World)(nil)
	_ env.IDs       = (*World)(nil)
	_ env.Completer = (*Future)(nil)
	_ choice.Source = (*World)(nil)
)

// New returns a world whose every decision comes from src.
func New(src choice.Source, opts Options) *World {
	if opts.Epoch.IsZero() {
		opts.Epoch = DefaultEpoch
	}
	if opts.MaxSteps <= 0 {
		opts.MaxSteps = DefaultMaxSteps
	}
	if opts.Trace == nil {
		opts.Trace = trace.New()
	}
	w := &World{
		src:   src,
		opts:  opts,
		tr:    opts.Trace,
		epoch: opts.Epoch,
		back:  make(chan struct{}),
	}
	w.root = w.NewProcess("root")
	return w
}

// Source returns the world's choice source.
func (w *World) Source() choice.Source { return w.src }

// Intn draws from the world's choice source, so a *World can be handed to
// anything that wants a choice.Source (faults.FS among them).
func (w *World) Intn(label string, n int) int { return w.src.Intn(label, n) }

// Trace returns the world's trace.
func (w *World) Trace() *trace.Trace { return w.tr }

// Step returns the number of scheduler steps taken so far. linz uses it as
// the logical time of operations.
func (w *World) Step() int64 { return w.step }

// Elapsed returns virtual time since the epoch.
func (w *World) Elapsed() time.Duration { return w.now }

// Root returns the process that owns main and actors started from outside
// any actor.
func (w *World) Root() *Process { return w.root }

// Env returns an env.Env for the root process with the given FS. Use
// Process.Env to bind another process.
func (w *World) Env(fs env.FS) env.Env { return w.root.Env(fs) }

// CurrentProcess is Current's process, without making the actor's name.
func (w *World) CurrentProcess() *Process {
	if w.current == nil {
		return nil
	}
	return w.current.proc
}

// Current returns the name of the running actor ("" when none) and its
// process (nil when none).
func (w *World) Current() (actor string, proc *Process) {
	if w.current == nil {
		return "", nil
	}
	return w.current.name(), w.current.proc
}

// Note appends a record to the trace on behalf of the running actor (or of
// the test goroutine). Actors of a crashed process cannot add notes.
func (w *World) Note(act string, kv ...trace.Field) {
	if w.current != nil && w.current.killed {
		return
	}
	w.note(act, kv...)
}

func (w *World) note(act string, kv ...trace.Field) {
	if w.current != nil {
		w.tr.AddWho(w.step, int64(w.now), w.current.traceWho(), act, kv...)
		return
	}
	w.tr.Add(w.step, int64(w.now), "", "", act, kv...)
}

// Stop ends the run successfully after the running actor's next scheduling
// point; every remaining actor is unwound.
func (w *World) Stop() {
	if w.current != nil && w.current.killed {
		return
	}
	if !w.stopped {
		w.stopped = true
		w.note("stop")
	}
}
