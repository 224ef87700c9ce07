package campaign

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// A reach item counts the runs that took its (row, order), is reached
// only with one, and the merge of shards adds the counts.
func TestReachCountsAndMerge(t *testing.T) {
	items := []ReachItem{{Row: "r", Order: "a", Name: "A"}, {Row: "r", Order: "b", Name: "B"}}
	one := reachCounts(items, map[string]map[string]int{"r": {"a": 2}})
	require.Equal(t, []ReachCount{{Row: "r", Order: "a", Name: "A", Runs: 2, Reached: true}, {Row: "r", Order: "b", Name: "B"}}, one)
	two := reachCounts(items, map[string]map[string]int{"r": {"a": 1, "b": 3}})
	var m Report
	mergeReach(&m, one)
	mergeReach(&m, two)
	require.Equal(t, []ReachCount{{Row: "r", Order: "a", Name: "A", Runs: 3, Reached: true}, {Row: "r", Order: "b", Name: "B", Runs: 3, Reached: true}}, m.Reach)
}
