package campaign

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestTakenOrdersCountsEveryOrderOnce(t *testing.T) {
	o := Outcome{Races: map[string]string{"A": "x", "B": "y"}}
	assert.Equal(t, map[string][]string{"A": {"x"}, "B": {"y"}}, o.TakenOrders())
	o.RaceOrders = map[string][]string{"A": {"x", "z", "x"}}
	assert.Equal(t, map[string][]string{"A": {"x", "z"}, "B": {"y"}}, o.TakenOrders())
	o.Races["C"] = "w"
	for range 10 { // map order must not leak into the listing
		assert.Equal(t, [][]string{{"A", "x", "z"}, {"B", "y"}, {"C", "w"}}, o.RacesTaken())
	}
}
