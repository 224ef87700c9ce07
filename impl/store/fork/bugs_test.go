//go:build frameproofbugs

package fork

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBugSwitches: no bug is on by default, every name turns on exactly
// its own switch, and unknown names are refused.
func TestBugSwitches(t *testing.T) {
	assert.Empty(t, Options{}.bugs.enabled(), "the zero value is the correct fork")
	require.Equal(t, []string{"fork-before-keeps-entry"}, BugNames())
	for _, n := range BugNames() {
		o, err := WithBugs(Options{}, n)
		require.NoError(t, err)
		assert.Equal(t, []string{n}, o.bugs.enabled(), "%s switches only itself", n)
	}
	_, err := WithBugs(Options{}, "nope")
	require.EqualError(t, err, `fork: unknown bug "nope" (known: [fork-before-keeps-entry])`)
}

// TestBugBeforeKeepsEntry: with fork-before-keeps-entry on, a fork before
// child keeps child (pi's selectForkContents keeps only its ancestors);
// a fork at child is unchanged.
func TestBugBeforeKeepsEntry(t *testing.T) {
	o, err := WithBugs(Options{Scope: ScopeBranch, Branch: "review", EntryID: ptr(child), Position: Before}, "fork-before-keeps-entry")
	require.NoError(t, err)
	snap, err := Create(source(), o)
	require.NoError(t, err)
	assert.Len(t, snap.Entries, 2, "the bug keeps the selected entry")
	assert.Equal(t, `"root"`, string(snap.Values[0].Value), "the tip is still the parent")
	o.Position = At
	at, err := Create(source(), o)
	require.NoError(t, err)
	want, err := Create(source(), Options{Scope: ScopeBranch, Branch: "review", EntryID: ptr(child)})
	require.NoError(t, err)
	assert.Equal(t, want, at, "the default position does not meet the bug")
}
