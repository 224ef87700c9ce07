package world

import (
	"errors"
	"fmt"
	"strings"
)

// ErrCrashed is wrapped by the error of every future that was unresolved
// when the process owning it crashed.
var ErrCrashed = errors.New("world: process crashed")

// Waiter describes one blocked actor in a DeadlockError.
type Waiter struct {
	Actor   string `json:"actor"`
	Process string `json:"process"`
	Future  string `json:"future"`
}

// DeadlockError: nothing is runnable, no timer is pending, and these actors
// wait on futures nobody will resolve.
type DeadlockError struct {
	Step    int64    `json:"step"`
	Waiters []Waiter `json:"waiters"`
}

func (e *DeadlockError) Error() string {
	parts := make([]string, len(e.Waiters))
	for i, w := range e.Waiters {
		parts[i] = fmt.Sprintf("%s (process %s) waits on %s", w.Actor, w.Process, w.Future)
	}
	return fmt.Sprintf("world: deadlock at step %d: %s", e.Step, strings.Join(parts, "; "))
}

// BudgetError: the run used its step budget without finishing, a liveness
// failure. Runnable and Sleeping name the actors still active.
type BudgetError struct {
	MaxSteps int64    `json:"maxSteps"`
	Runnable []string `json:"runnable"`
	Sleeping []string `json:"sleeping"`
	Waiting  []Waiter `json:"waiting"`
}

func (e *BudgetError) Error() string {
	return fmt.Sprintf("world: step budget of %d exhausted (liveness): runnable %v, sleeping %v, %d waiting",
		e.MaxSteps, e.Runnable, e.Sleeping, len(e.Waiting))
}

// PanicError: an actor panicked. Stack is the actor goroutine's stack at the
// panic (not part of the trace: addresses vary between runs).
type PanicError struct {
	Step  int64  `json:"step"`
	Actor string `json:"actor"`
	Value any    `json:"-"`
	Text  string `json:"value"`
	Stack string `json:"-"`
}

func (e *PanicError) Error() string {
	return fmt.Sprintf("world: actor %s panicked at step %d: %s", e.Actor, e.Step, e.Text)
}
