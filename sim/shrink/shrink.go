// Package shrink minimises a failing choice tape by delta debugging.
//
// A tape (choice.Tape) replays through choice.NewReplay, which clamps
// out-of-range values and pads with zeros, so every candidate the shrinker
// builds is a valid run. Shrink first removes chunks of the tape (ddmin:
// complements of n chunks, n doubling up to single entries), then lowers
// each remaining value towards 0 (0 first, then a binary search), and
// repeats both passes until nothing changes or the attempt budget is spent.
// The result still fails and is 1-minimal with respect to removing single
// entries when the budget allows.
package shrink

import "github.com/frameproof/frameproof/sim/choice"

// DefaultMaxAttempts bounds the predicate calls of Shrink unless
// Options.MaxAttempts says otherwise.
const DefaultMaxAttempts = 2000

// Options tune Shrink.
type Options struct {
	// MaxAttempts bounds how many times fails is called (default
	// DefaultMaxAttempts).
	MaxAttempts int
}

// Stats describes one Shrink call.
type Stats struct {
	Attempts  int  `json:"attempts"`  // predicate calls made
	Accepted  int  `json:"accepted"`  // candidates that still failed
	Exhausted bool `json:"exhausted"` // the attempt budget ran out
	From      int  `json:"from"`      // tape length before
	To        int  `json:"to"`        // tape length after
}

type shrinker struct {
	fails func(choice.Tape) bool
	max   int
	stats Stats
}

// try calls the predicate within the budget.
func (s *shrinker) try(t choice.Tape) bool {
	if s.stats.Attempts >= s.max {
		s.stats.Exhausted = true
		return false
	}
	s.stats.Attempts++
	if s.fails(t) {
		s.stats.Accepted++
		return true
	}
	return false
}

// Shrink returns a smaller tape on which fails still returns true. tape
// itself must fail (it is not re-checked); fails must be deterministic.
func Shrink(tape choice.Tape, fails func(choice.Tape) bool, opts Options) (choice.Tape, Stats) {
	if opts.MaxAttempts <= 0 {
		opts.MaxAttempts = DefaultMaxAttempts
	}
	s := &shrinker{fails: fails, max: opts.MaxAttempts}
	s.stats.From = len(tape)
	cur := tape.Clone()
	for {
		before := len(cur)
		beforeSum := sum(cur)
		cur = s.ddmin(cur)
		cur = s.trimZeros(cur)
		cur = s.lower(cur)
		if s.stats.Exhausted || (len(cur) == before && sum(cur) == beforeSum) {
			break
		}
	}
	s.stats.To = len(cur)
	return cur, s.stats
}

// ddmin removes chunks: split into n parts, try dropping each part; on
// success keep the smaller tape and coarsen, otherwise refine n.
func (s *shrinker) ddmin(cur choice.Tape) choice.Tape {
	n := 2
	for len(cur) > 0 && !s.stats.Exhausted {
		if n > len(cur) {
			n = len(cur)
		}
		chunk := (len(cur) + n - 1) / n
		removed := false
		// Later chunks first: the tail of a tape usually matters least,
		// and cutting it shortens every later attempt.
		for start := (n - 1) * chunk; start >= 0; start -= chunk {
			if start >= len(cur) {
				continue
			}
			end := min(start+chunk, len(cur))
			cand := make(choice.Tape, 0, len(cur)-(end-start))
			cand = append(append(cand, cur[:start]...), cur[end:]...)
			if s.try(cand) {
				cur = cand
				removed = true
				break
			}
		}
		switch {
		case removed:
			n = max(n-1, 2)
		case n >= len(cur):
			return cur
		default:
			n = min(2*n, len(cur))
		}
	}
	return cur
}

// trimZeros drops trailing zeros: under replay they equal the padding, so
// the shorter tape normally fails the same way. One predicate call confirms.
func (s *shrinker) trimZeros(cur choice.Tape) choice.Tape {
	end := len(cur)
	for end > 0 && cur[end-1].V <= 0 {
		end--
	}
	if end < len(cur) && s.try(cur[:end]) {
		return cur[:end]
	}
	return cur
}

// lower moves each value towards 0: first 0 itself, then a binary search
// for the smallest value that still fails.
func (s *shrinker) lower(cur choice.Tape) choice.Tape {
	for i := 0; i < len(cur) && !s.stats.Exhausted; i++ {
		v := cur[i].V
		if v <= 0 {
			continue
		}
		with := func(x int) choice.Tape {
			cand := cur.Clone()
			cand[i].V = x
			return cand
		}
		if cand := with(0); s.try(cand) {
			cur = cand
			continue
		}
		lo, hi := 0, v // lo passes, hi fails
		for hi-lo > 1 && !s.stats.Exhausted {
			mid := lo + (hi-lo)/2
			if cand := with(mid); s.try(cand) {
				hi = mid
			} else {
				lo = mid
			}
		}
		cur = with(hi)
	}
	return cur
}

func sum(t choice.Tape) int {
	total := 0
	for _, c := range t {
		total += c.V
	}
	return total
}
