package store

import (
	"strconv"
	"testing"

	"pgregory.net/rapid"
)

// KeySet.Add reports a repeat exactly when a map of the keys so far holds
// the key, below, at and past PairwiseKeys keys.
func TestKeySetIsAMap(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var s KeySet
		seen := map[string]bool{}
		for i, n := 0, rapid.IntRange(0, 3*PairwiseKeys).Draw(t, "keys"); i < n; i++ {
			k := strconv.Itoa(rapid.IntRange(0, 4*PairwiseKeys).Draw(t, "key"))
			if got := s.Add(k); got != seen[k] {
				t.Fatalf("key %d (%q): Add says repeated %v, the map %v", i, k, got, seen[k])
			}
			seen[k] = true
		}
	})
}
