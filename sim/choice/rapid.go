package choice

import "pgregory.net/rapid"

// Rapid adapts a *rapid.T: every decision is a labelled rapid draw, so rapid
// records it, prints it on failure and shrinks it with everything else.
type Rapid struct {
	t    *rapid.T
	gens map[int]*rapid.Generator[int]
}

// FromRapid returns a Source drawing from t.
func FromRapid(t *rapid.T) *Rapid {
	return &Rapid{t: t, gens: make(map[int]*rapid.Generator[int])}
}

// Intn implements Source.
func (r *Rapid) Intn(label string, n int) int {
	if n <= 1 {
		return 0
	}
	g, ok := r.gens[n]
	if !ok {
		g = rapid.IntRange(0, n-1)
		r.gens[n] = g
	}
	return g.Draw(r.t, label)
}
