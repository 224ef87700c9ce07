package provider

import (
	"testing"

	impl "github.com/frameproof/frameproof/impl/provider"
	"github.com/stretchr/testify/require"
)

// expectedCatch names the rule each seeded bug must trip.
var expectedCatch = map[impl.Bug]string{
	impl.BugTextStartsNonEmpty: RuleTextStartsEmpty,
	impl.BugDropFinalDelta:     RuleEndMatchesAccum,
	impl.BugRestartToolCall:    RuleSingleBlockStart,
	impl.BugEventAfterDone:     RuleNothingAfter,
	impl.BugMisnumberedIndex:   RuleIndexConsistent,
}

// CatchSeededBug draws scenarios for wire until the buggy Go adapter breaks
// a rule, and returns the seed and the violations (nil when never caught).
func catchSeededBug(t *testing.T, wire impl.Wire, bug impl.Bug, budget int) (int, []Violation) {
	t.Helper()
	for seed := 0; seed < budget; seed++ {
		sc := GenScenario(wire).Example(seed)
		res, err := RunScenario(GoSubject{Bug: bug}, sc)
		require.NoError(t, err)
		if res.Failed() {
			return seed, res.Violations
		}
	}
	return -1, nil
}

// Proof of power: every seeded adapter bug is caught on every wire, by the
// rule it was designed to break.
func TestSeededBugsAreCaught(t *testing.T) {
	for _, wire := range impl.Wires {
		for _, bug := range impl.Bugs {
			t.Run(string(wire)+"/"+bug.String(), func(t *testing.T) {
				seed, vs := catchSeededBug(t, wire, bug, 2000)
				require.NotNil(t, vs, "seeded bug %s was never caught on %s", bug, wire)
				rules := map[string]bool{}
				for _, v := range vs {
					rules[v.Rule] = true
				}
				require.True(t, rules[expectedCatch[bug]], "seed %d: bug %s caught, but not by %s: %v", seed, bug, expectedCatch[bug], vs)
			})
		}
	}
}
