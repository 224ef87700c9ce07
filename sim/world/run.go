package world

import (
	"errors"

	"github.com/frameproof/frameproof/sim/choice"
	"github.com/frameproof/frameproof/sim/trace"
)

// Run starts main as actor "main" of Root() (main may be nil when actors
// were started with Go beforehand) and schedules until the run ends; see the
// package doc for the outcomes. A world runs once.
func (w *World) Run(main func()) error {
	if w.running || w.ran {
		return errors.New("world: run: a world can only be run once")
	}
	w.running, w.ran = true, true
	defer func() { w.running = false }()
	if main != nil {
		w.main = w.newActor(w.root, "main", main)
		w.note("spawn", w.main.nameField("child"), trace.S("process", w.root.label))
	}
	err := w.loop()
	// Leave no goroutine behind, whatever the outcome.
	for _, a := range w.actors {
		w.kill(a)
	}
	w.unwindKilled()
	w.stopWorkers()
	return err
}

func (w *World) loop() error {
	for {
		w.unwindKilled()
		w.compactActors()
		if w.panicErr != nil {
			return w.panicErr
		}
		if w.stopped {
			return nil
		}
		n := len(w.runnable)
		_, timerPending := w.nextTimer()
		if n == 0 && !timerPending {
			waiters := w.waiters()
			if len(waiters) == 0 {
				return nil
			}
			if w.opts.IdleOK && (w.main == nil || w.main.state == stDone) {
				return nil
			}
			return &DeadlockError{Step: w.step, Waiters: waiters}
		}
		if w.step >= w.opts.MaxSteps {
			return w.budgetError()
		}
		options := n
		if timerPending && (n == 0 || !w.opts.TimersOnlyWhenIdle) {
			options++
		}
		i := w.src.Intn("sched", options)
		w.step++
		if i >= n {
			w.nameSched(options, "sched "+SchedClock)
			w.advance()
			continue
		}
		a := w.runnable[i]
		if options >= 2 && a.schedLabel == "" {
			a.schedLabel = a.schedName()
		}
		w.nameSched(options, a.schedLabel)
		w.runnable = append(w.runnable[:i], w.runnable[i+1:]...)
		w.runActor(a)
	}
}

// SchedClock names the scheduling choice that advances the clock to the
// earliest timer instead of running an actor.
const SchedClock = "clock"

// nameSched relabels the scheduling choice just drawn over options with
// label, "sched " and what it picked ("sched driver#2", "sched clock"), when
// the source records labels (choice.Namer). A draw over one option records
// nothing, so it is not renamed.
func (w *World) nameSched(options int, label string) {
	if options < 2 {
		return
	}
	if nm, ok := w.src.(choice.Namer); ok {
		nm.NameLast(label)
	}
}

func (w *World) waiters() []Waiter {
	var out []Waiter
	for _, a := range w.actors {
		if a.state == stWaiting {
			out = append(out, Waiter{Actor: a.name(), Process: a.proc.label, Future: a.waitingOn.name()})
		}
	}
	return out
}

func (w *World) budgetError() *BudgetError {
	e := &BudgetError{MaxSteps: w.opts.MaxSteps, Waiting: w.waiters()}
	for _, a := range w.runnable {
		e.Runnable = append(e.Runnable, a.name())
	}
	for _, a := range w.actors {
		if a.state == stSleeping {
			e.Sleeping = append(e.Sleeping, a.name())
		}
	}
	return e
}
