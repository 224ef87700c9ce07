package choice

// The helpers below build richer decisions on Intn. Each keeps the shrinking
// convention: the value 0 maps to the simplest outcome.

// Bool returns a fair coin; 0 (the shrink target) is false.
func Bool(s Source, label string) bool { return s.Intn(label, 2) == 1 }

// Chance returns true with probability num/den. The drawn value 0 maps to
// false whenever num < den, so shrinking turns optional events (faults) off.
// num <= 0 is always false without a draw; num >= den always true.
func Chance(s Source, label string, num, den int) bool {
	if num <= 0 || den <= 0 {
		return false
	}
	if num >= den {
		return true
	}
	return s.Intn(label, den) >= den-num
}

// Range returns a value in [lo, hi] (inclusive); lo is the shrink target.
// hi < lo returns lo.
func Range(s Source, label string, lo, hi int) int {
	if hi <= lo {
		return lo
	}
	return lo + s.Intn(label, hi-lo+1)
}

// Pick returns one element of items; the first is the shrink target. items
// must not be empty.
func Pick[T any](s Source, label string, items []T) T {
	if len(items) == 0 {
		panic("choice: Pick from an empty slice (label " + label + ")")
	}
	return items[s.Intn(label, len(items))]
}

// Weighted returns an index into weights, index i with probability
// weights[i]/sum. Index 0 is the shrink target (value 0 lands in the first
// positive weight). Non-positive weights are never chosen; if all are
// non-positive it returns 0.
func Weighted(s Source, label string, weights []int) int {
	total := 0
	for _, w := range weights {
		if w > 0 {
			total += w
		}
	}
	if total == 0 {
		return 0
	}
	v := s.Intn(label, total)
	for i, w := range weights {
		if w <= 0 {
			continue
		}
		if v < w {
			return i
		}
		v -= w
	}
	return len(weights) - 1 // unreachable
}

// Perm returns a permutation of [0, n). An all-zero tape gives the identity.
func Perm(s Source, label string, n int) []int {
	p := make([]int, n)
	for i := range p {
		p[i] = i
	}
	// Selection shuffle: position i takes one of the remaining elements; 0
	// keeps the current one, so an all-zero tape leaves p untouched.
	for i := 0; i < n-1; i++ {
		j := i + s.Intn(label, n-i)
		p[i], p[j] = p[j], p[i]
	}
	return p
}
