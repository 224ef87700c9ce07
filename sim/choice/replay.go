package choice

// Replay returns the values of a recorded tape, in order, ignoring labels.
//
// It never fails: a value outside [0, n) is clamped (negative to 0, too large
// to n-1) and draws past the end of the tape return 0. That keeps every tape
// the shrinker produces valid, and a shorter tape means "the rest is the
// simplest choice". Used reports what the run actually consumed.
type Replay struct {
	tape    Tape
	pos     int
	used    Tape
	clamped int
	overrun int
}

// NewReplay returns a source that replays tape.
func NewReplay(tape Tape) *Replay {
	return &Replay{tape: tape}
}

// Intn implements Source.
func (r *Replay) Intn(label string, n int) int {
	if n <= 1 {
		return 0
	}
	v := 0
	if r.pos < len(r.tape) {
		v = r.tape[r.pos].V
		r.pos++
		if v < 0 {
			v = 0
			r.clamped++
		} else if v >= n {
			v = n - 1
			r.clamped++
		}
	} else {
		r.overrun++
	}
	r.used = append(r.used, Choice{Label: label, N: n, V: v})
	return v
}

// NameLast implements Namer: it relabels the last decision of Used.
func (r *Replay) NameLast(label string) { r.used.nameLast(label) }

// Len is the number of recorded choices (the tape's length).
func (r *Replay) Len() int { return len(r.tape) }

// Used returns the decisions actually made (labels and ranges of this run,
// values after clamping). Replaying Used gives the same run.
func (r *Replay) Used() Tape { return r.used.Clone() }

// Relabelled returns the recorded tape with every choice the run consumed
// carrying this run's label and range (and its value after clamping); a
// choice past the run's last draw is kept as recorded. A shrunk tape is cut
// from a longer run, so its recorded labels no longer match the draws its
// values feed; relabelled, it replays the same run and reads as it.
func (r *Replay) Relabelled() Tape {
	out := r.tape.Clone()
	for k := 0; k < len(out) && k < len(r.used); k++ {
		out[k] = r.used[k] // the k-th draw consumed the k-th recorded value
	}
	return out
}

// Clamped counts values that were out of range and clamped.
func (r *Replay) Clamped() int { return r.clamped }

// Overrun counts draws made after the tape ran out (each returned 0).
func (r *Replay) Overrun() int { return r.overrun }
