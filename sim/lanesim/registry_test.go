package lanesim

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

// Every row of the actor table is started by some profile and names a
// distinct actor (a row no profile switches on is dead code; two rows with
// one name would make tapes and traces ambiguous).
func TestEveryActorRunsInSomeProfile(t *testing.T) {
	seen := map[string]bool{}
	for _, a := range actorTable() {
		require.False(t, seen[a.name], "actor %s listed twice", a.name)
		seen[a.name] = true
		on := false
		for _, p := range profiles {
			on = on || a.on(p)
		}
		require.True(t, on, "no profile starts actor %s", a.name)
	}
}

// Every registered checker subscribes to at least one event, and none is
// registered twice (it would run twice per event).
func TestEveryCheckerSubscribes(t *testing.T) {
	r := &runner{}
	r.seqs, r.inv = newSeqChecker(r), newInvariantChecker(r)
	r.linz = newLinzState(r)
	r.ls = newLockstep(r)
	r.client = &clientFoldChecker{r: r}
	r.capture = &captureChecker{r: r}
	seen := map[string]bool{}
	for _, k := range newCheckers(r) {
		name := fmt.Sprintf("%T", k)
		require.False(t, seen[name], "checker %s registered twice", name)
		seen[name] = true
		switch k.(type) {
		case laneEventChecker, frameChecker, reopenedChecker, commitChecker, committedFrameChecker,
			snapshotChecker, restoredChecker, endChecker:
		default:
			t.Errorf("checker %s subscribes to no event", name)
		}
	}
}

// The registry calls each event's subscribers in the order newCheckers
// lists them (the order is part of the trace): every list is the checkers
// that implement its event, in list order.
func TestRegistryKeepsTheListOrder(t *testing.T) {
	r := bareRunner()
	ks := newCheckers(r)
	g := newRegistry(ks)
	var commits, ends []any
	for _, k := range ks {
		if _, ok := k.(commitChecker); ok {
			commits = append(commits, k)
		}
		if _, ok := k.(endChecker); ok {
			ends = append(ends, k)
		}
	}
	require.Len(t, g.commit, len(commits))
	for i, s := range g.commit {
		require.Same(t, commits[i], s, "commit subscriber %d", i)
	}
	require.Len(t, g.end, len(ends))
	for i, s := range g.end {
		require.Same(t, ends[i], s, "end subscriber %d", i)
	}
}
