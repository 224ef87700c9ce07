package faults

import (
	"fmt"
	"math/rand/v2"

	"pgregory.net/rapid"
)

// Chooser supplies every nondeterministic decision of the faulty FS.
type Chooser interface {
	// Intn returns a number in [0, n), n >= 1. label names the decision so
	// that traces and rapid's output say what was chosen.
	Intn(label string, n int) int
}

// Rand is a Chooser backed by a seeded PCG generator.
type Rand struct{ r *rand.Rand }

// RandChooser returns a Chooser that draws from a PRNG seeded with seed; the
// same seed gives the same sequence of decisions.
func RandChooser(seed uint64) *Rand {
	return &Rand{r: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
}

// Intn implements Chooser.
func (c *Rand) Intn(_ string, n int) int {
	if n <= 1 {
		return 0
	}
	return c.r.IntN(n)
}

type rapidChooser struct{ t *rapid.T }

// RapidChooser adapts a rapid *T: each decision is a labelled draw, so rapid
// records, shrinks and prints it.
func RapidChooser(t *rapid.T) Chooser { return rapidChooser{t} }

func (c rapidChooser) Intn(label string, n int) int {
	if n <= 1 {
		return 0
	}
	return rapid.IntRange(0, n-1).Draw(c.t, label)
}

// Fixed always returns the same index (clamped to n-1). Fixed(0) is the
// "lose everything pending" chooser; with a large value a crash keeps as much
// as it can.
type Fixed int

// Intn implements Chooser.
func (c Fixed) Intn(_ string, n int) int {
	if int(c) >= n {
		return n - 1
	}
	if c < 0 {
		return 0
	}
	return int(c)
}

// Choice is one recorded decision.
type Choice struct {
	Label string
	N     int
	Value int
}

func (c Choice) String() string { return fmt.Sprintf("%s=%d/%d", c.Label, c.Value, c.N) }

// Enumerate calls run once for every distinct sequence of decisions it makes
// through the given Chooser (depth-first, odometer style), so small cases
// can be checked exhaustively. run must be deterministic given its choices.
// It stops after limit runs (limit <= 0: no limit) and reports how many runs
// it made and whether the whole tree was covered.
func Enumerate(limit int, run func(c Chooser)) (runs int, complete bool) {
	e := &enumerator{}
	for {
		e.pos = 0
		run(e)
		runs++
		// Drop decisions recorded beyond what this run consumed (a run may
		// take a shorter path than the tape remembers).
		e.tape = e.tape[:e.pos]
		// Advance the odometer: the last position that still has an untried
		// value moves on, everything after it is forgotten.
		for len(e.tape) > 0 && e.tape[len(e.tape)-1].Value+1 >= e.tape[len(e.tape)-1].N {
			e.tape = e.tape[:len(e.tape)-1]
		}
		if len(e.tape) == 0 {
			return runs, true
		}
		e.tape[len(e.tape)-1].Value++
		if limit > 0 && runs >= limit {
			return runs, false
		}
	}
}

type enumerator struct {
	tape []Choice
	pos  int
}

func (e *enumerator) Intn(label string, n int) int {
	if n <= 1 {
		return 0
	}
	if e.pos < len(e.tape) {
		c := e.tape[e.pos]
		e.pos++
		if c.Value >= n { // the run was not deterministic; stay in range
			return n - 1
		}
		return c.Value
	}
	e.tape = append(e.tape, Choice{label, n, 0})
	e.pos++
	return 0
}
