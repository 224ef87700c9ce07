package lanesim

import (
	"maps"
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// keys kept sorted as they arrive are the set's keys sorted, as the
// comparison read them when it sorted the set at every call.
func TestFrameKeysAreTheSortedSet(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		ls := &lockstep{}
		set := map[string]bool{}
		for _, k := range rapid.SliceOf(rapid.StringMatching(`[a-c]{0,3}:[a-c]{0,2}`)).Draw(t, "keys") {
			ls.noteFrameKey(k)
			set[k] = true
			if got, want := ls.keys(), slices.Sorted(maps.Keys(set)); !slices.Equal(got, want) {
				t.Fatalf("keys %q, the set sorted %q", got, want)
			}
		}
	})
}
