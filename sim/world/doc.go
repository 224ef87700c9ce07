// Package world is the deterministic world of the simulator: actors, futures,
// a virtual clock, deterministic ids and crashable processes. A *World
// implements env.Executor, env.Clock and env.IDs, and a *Process implements
// env.Executor, so impl/ code runs on it unchanged.
//
// # Actor model
//
// An actor is a goroutine, but exactly one actor runs at a time: the
// scheduler hands a baton to one actor, which runs until it reaches a
// scheduling point and hands the baton back. Scheduling points are
//
//   - Future.Wait on an unresolved future (the actor parks until Resolve),
//   - Clock.Sleep(d) (parks until virtual time reaches now+d; d <= 0 is a
//     plain yield),
//   - World.Yield (stays runnable, lets the scheduler pick again),
//   - returning from the actor function, or a crash of its process.
//
// Wait on an already resolved future, Resolve, Go, NewFuture, Now and NewID
// never switch actors. At each scheduling point the scheduler lists the
// runnable actors in creation order and asks the choice source
// Intn("sched", n) which one runs (n+1 options while a timer is pending: the
// last one advances the clock to the earliest timer even though actors could
// run, so timeouts can fire "early"; Options.TimersOnlyWhenIdle turns that
// off). A source that records labels (choice.Namer) then relabels the choice
// with its pick, "sched driver#2" or "sched clock", so a tape names the
// actor of every step. When nothing is runnable the clock jumps to the earliest timer. Same
// choices → same schedule → same trace bytes.
//
// # Processes and crashes
//
// Every actor belongs to a Process (an incarnation of a program). Run's main
// actor and actors started by World.Go from outside any actor belong to
// Root(). World.Go called from an actor starts the new actor in the caller's
// process, so impl code that spawns helpers keeps them in its process; give
// impl code a Process as its env.Executor (see Process.Env) to pin it.
//
// Process.Crash kills every actor of that incarnation at once: they never run
// user code again, except that their goroutines are unwound (a sentinel
// panic inside Wait/Sleep, recovered by the actor wrapper) so nothing leaks.
// Deferred functions of killed actors do run during that unwinding; while
// they run, Resolve/Go/Note/Stop/Crash are ignored and Sleep, Yield and Wait
// on an unresolved future re-panic, so a dead process has no effect on the
// world. (Code that recovers every panic and
// keeps going defeats this; don't do that in actors.) Futures created by the
// crashed process (Process.NewFuture, or World.NewFuture from one of its
// actors) that are still unresolved resolve with an error wrapping
// ErrCrashed, so an actor of another process waiting on them — a client —
// learns the outcome is indefinite. Start the next incarnation with
// Process.Restart or World.NewProcess.
//
// # Ending a run
//
// Run(main) returns nil when every actor has finished, or when World.Stop was
// called (everything left is unwound). It returns
//
//   - *DeadlockError when nothing can run, no timer is pending, and some actor
//     still waits (unless Options.IdleOK and main has returned: then blocked
//     daemons are fine);
//   - *BudgetError when Options.MaxSteps scheduler steps are used up
//     (a liveness failure: livelock, endless polling);
//   - *PanicError when an actor panics (the value and stack are kept).
//
// After Run returns, no goroutine of the world is left.
//
// # Misuse
//
// Wait on an unresolved future and Sleep outside a running actor (for
// example on the test goroutine before Run) panic with a message saying so.
// The world is not safe for concurrent use: only its actors (one at a time)
// and, before or after Run, the test goroutine may call it.
package world
