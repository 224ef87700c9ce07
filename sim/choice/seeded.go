package choice

import "math/bits"

// Seeded is a deterministic PRNG source that records every decision.
//
// The generator is splitmix64 with Lemire's unbiased bounded-integer
// reduction, written out here rather than taken from math/rand so that a seed
// printed by a campaign reproduces the same run on every Go release.
type Seeded struct {
	seed  uint64
	state uint64
	tape  Tape
}

// NewSeeded returns a recording PRNG source for seed.
func NewSeeded(seed uint64) *Seeded {
	// room for a typical run's decisions, which the tape otherwise took
	// in a dozen doublings (an empty tape still reads as none: Tape, Len)
	return &Seeded{seed: seed, state: seed, tape: make(Tape, 0, seededTapeCap)}
}

// seededTapeCap is the tape's first capacity: a campaign run of the
// default mix records a few hundred decisions.
const seededTapeCap = 512

// Seed returns the seed the source was created with.
func (s *Seeded) Seed() uint64 { return s.seed }

// Intn implements Source.
func (s *Seeded) Intn(label string, n int) int {
	if n <= 1 {
		return 0
	}
	v := int(s.bounded(uint64(n)))
	s.tape = append(s.tape, Choice{Label: label, N: n, V: v})
	return v
}

// NameLast implements Namer.
func (s *Seeded) NameLast(label string) { s.tape.nameLast(label) }

// Tape returns the decisions made so far (a copy).
func (s *Seeded) Tape() Tape { return s.tape.Clone() }

// Len returns the number of decisions made so far.
func (s *Seeded) Len() int { return len(s.tape) }

func (s *Seeded) next() uint64 {
	s.state += 0x9e3779b97f4a7c15
	z := s.state
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// bounded returns a uniform value in [0, n) (Lemire, "Fast Random Integer
// Generation in an Interval", 2019).
func (s *Seeded) bounded(n uint64) uint64 {
	hi, lo := bits.Mul64(s.next(), n)
	if lo < n {
		threshold := -n % n
		for lo < threshold {
			hi, lo = bits.Mul64(s.next(), n)
		}
	}
	return hi
}
