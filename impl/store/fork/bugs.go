package fork

import "slices"

// bug names one deliberately injectable defect of the fork snapshot, for
// the simulator's mutation score (sim/lanesim). A bug's switch exists only
// in builds with the frameproofbugs tag (bugs_on.go); in every other build
// bugs.on is a constant false (bugs_off.go), the compiler drops every bug
// branch, and Options has no way to turn one on.
type bug uint8

const (
	// bugBeforeKeepsEntry makes a branch fork at position "before" keep
	// the selected entry (its tip is still the entry's parent): reached
	// only by a fork with pi's non-default position.
	bugBeforeKeepsEntry bug = iota
	numBugs
)

// bugNames is the one registry of the fork's bug names.
var bugNames = [numBugs]string{
	bugBeforeKeepsEntry: "fork-before-keeps-entry",
}

// BugNames lists the injectable fork bugs by name, sorted. The names exist
// in every build; the switches only with the frameproofbugs tag (WithBugs).
func BugNames() []string {
	out := slices.Clone(bugNames[:])
	slices.Sort(out)
	return out
}
