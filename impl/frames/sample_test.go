package frames

import (
	"testing"

	"pgregory.net/rapid"
)

// The shares a property's generator must reach (lists that reduce to a
// message, frames that take a fast path, literals the cache holds) are
// checked on a fixed sample, never counted inside rapid.Check: there they
// vary with rapid's random seed, and a floor on them fails now and then on
// a correct reducer (CI failed once so, 7 of 100 decimals accepted, and
// under -race -short's 20 checks one run in fifty found no message).

// sample is n values of gen, drawn with the seeds 1..n: the same values on
// every run of one rapid version.
func sample[V any](gen func(*rapid.T) V, n int) []V {
	g := rapid.Custom(gen)
	out := make([]V, n)
	for i := range out {
		out[i] = g.Example(i + 1)
	}
	return out
}

func count[V any](vs []V, pred func(V) bool) int {
	n := 0
	for _, v := range vs {
		if pred(v) {
			n++
		}
	}
	return n
}

// requireShare fails unless got is at least num/den of total, and total
// is not zero (a sample with none of what is counted reaches nothing).
func requireShare(t *testing.T, what string, got, total, num, den int) {
	t.Helper()
	if total == 0 || got*den < total*num {
		t.Fatalf("%s: %d of %d, under %d/%d", what, got, total, num, den)
	}
	t.Logf("%s: %d of %d", what, got, total)
}
