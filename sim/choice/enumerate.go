package choice

// Fixed is a Source that always returns the same value (clamped to n-1).
// Fixed(0) takes the simplest outcome everywhere (for a crash: keep nothing
// unsynced); a large value takes the last one (keep as much as possible).
type Fixed int

// Intn implements Source.
func (c Fixed) Intn(_ string, n int) int {
	if n <= 1 || c < 0 {
		return 0
	}
	return min(int(c), n-1)
}

// Enumerate calls run once for every distinct sequence of decisions it
// makes through the given Source (depth first, odometer style: the last
// decision varies fastest), so small cases can be checked exhaustively. run
// must be deterministic given its decisions. It stops after limit runs
// (limit <= 0: no limit) and reports how many runs it made and whether the
// whole tree was covered.
func Enumerate(limit int, run func(src Source)) (runs int, complete bool) {
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
		for len(e.tape) > 0 && e.tape[len(e.tape)-1].V+1 >= e.tape[len(e.tape)-1].N {
			e.tape = e.tape[:len(e.tape)-1]
		}
		if len(e.tape) == 0 {
			return runs, true
		}
		e.tape[len(e.tape)-1].V++
		if limit > 0 && runs >= limit {
			return runs, false
		}
	}
}

type enumerator struct {
	tape Tape
	pos  int
}

// NameLast implements Namer for a decision this enumerator added (a prefix
// value it replayed keeps the label it was recorded with).
func (e *enumerator) NameLast(label string) {
	if e.pos == len(e.tape) {
		e.tape.nameLast(label)
	}
}

func (e *enumerator) Intn(label string, n int) int {
	if n <= 1 {
		return 0
	}
	if e.pos < len(e.tape) {
		c := e.tape[e.pos]
		e.pos++
		if c.V >= n { // the run was not deterministic; stay in range
			return n - 1
		}
		return c.V
	}
	e.tape = append(e.tape, Choice{Label: label, N: n})
	e.pos++
	return 0
}
