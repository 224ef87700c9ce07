package shrink

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/frameproof/frameproof/sim/choice"
)

// containsInOrder reports whether the values a then b appear in t in order.
func containsInOrder(t choice.Tape, a, b int) bool {
	seenA := false
	for _, c := range t {
		if seenA && c.V == b {
			return true
		}
		if c.V == a {
			seenA = true
		}
	}
	return false
}

func TestShrinksToTheMinimalTape(t *testing.T) {
	fails := func(t choice.Tape) bool { return containsInOrder(t, 3, 7) }
	for seed := range uint64(20) {
		src := choice.NewSeeded(seed)
		for i := 0; i < 200 || !fails(src.Tape()); i++ {
			src.Intn("x", 10)
		}
		tape := src.Tape()
		require.True(t, fails(tape))
		got, stats := Shrink(tape, fails, Options{})
		require.Equal(t, []int{3, 7}, got.Values(), "seed %d: %+v", seed, stats)
		require.False(t, stats.Exhausted)
		require.Equal(t, len(tape), stats.From)
		require.Equal(t, 2, stats.To)
		require.True(t, fails(got))
	}
}

func TestLowersValuesToTheThreshold(t *testing.T) {
	// Fails iff the sum of the tape is at least 25: the minimum is a single
	// value 25 ... or a few values summing to 25; either way sum == 25.
	fails := func(t choice.Tape) bool {
		s := 0
		for _, c := range t {
			s += c.V
		}
		return s >= 25
	}
	got, _ := Shrink(choice.TapeOf(9, 9, 9, 9, 9, 9), fails, Options{})
	require.Equal(t, 25, sum(got))
	require.LessOrEqual(t, len(got), 3)
}

func TestRespectsTheAttemptBudget(t *testing.T) {
	calls := 0
	fails := func(t choice.Tape) bool { calls++; return containsInOrder(t, 3, 7) }
	tape := choice.NewSeeded(1)
	for !fails(tape.Tape()) || tape.Len() < 500 {
		tape.Intn("x", 10)
	}
	calls = 0
	got, stats := Shrink(tape.Tape(), fails, Options{MaxAttempts: 10})
	require.Equal(t, 10, calls)
	require.Equal(t, 10, stats.Attempts)
	require.True(t, stats.Exhausted)
	require.True(t, containsInOrder(got, 3, 7), "a partial shrink must still fail")
}

func TestResultAlwaysFails(t *testing.T) {
	// A predicate that only fails for long tapes: the shrinker must stop
	// at the shortest failing length rather than return a passing tape.
	fails := func(t choice.Tape) bool { return len(t) >= 17 && t[16].V > 0 }
	src := choice.NewSeeded(5)
	for !fails(src.Tape()) || src.Len() < 40 {
		src.Intn("x", 5)
	}
	got, _ := Shrink(src.Tape(), fails, Options{})
	require.True(t, fails(got))
	require.Len(t, got, 17)
	require.Equal(t, 1, got[16].V)
}
