package pirecovery

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// --write replaces the marked section and keeps the rest of the document;
// a document without one gets it appended.
func TestReplaceSection(t *testing.T) {
	doc, err := ReplaceSection([]byte("# Doc\n\nbefore\n"), []byte("| t1 |\n"))
	require.NoError(t, err)
	want := "# Doc\n\nbefore\n\n" + SectionBegin + "\n\n| t1 |\n\n" + SectionEnd + "\n"
	require.Equal(t, want, string(doc))
	doc, err = ReplaceSection([]byte(string(doc)+"after\n"), []byte("| t2 |\n"))
	require.NoError(t, err)
	require.Equal(t, "# Doc\n\nbefore\n\n"+SectionBegin+"\n\n| t2 |\n\n"+SectionEnd+"\nafter\n", string(doc))
	_, err = ReplaceSection([]byte(SectionBegin+"\nno end\n"), []byte("x"))
	require.Error(t, err)
}

// Every pinned release has a peer, and the default is the first.
func TestReleases(t *testing.T) {
	require.Equal(t, DefaultRelease, Releases[0].Version)
	for _, r := range Releases {
		got, err := ReleaseOf(r.Version)
		require.NoError(t, err)
		require.Equal(t, r.Peer, got.Peer)
	}
	_, err := ReleaseOf("1.0.3")
	require.ErrorContains(t, err, "not pinned")
}

// A change between releases is explained only by name: the maxAgentDelayMs
// that 0.87.1 stores and the capped notBefore are; anything else is not.
func TestTxChangesAreExplained(t *testing.T) {
	line := func(state string) string {
		return `[{"kind":"value","op":"set","namespace":"pi.op.state","key":"op","value":` + state + `}]`
	}
	p := Point{Run: "r", K: 1, Recovery: 0, Reopen: []string{line(`{"at":"assistant.retry_wait","generationContext":{"retryPolicy":{"maxAttempts":4,"baseDelayMs":45000}},"notBefore":1767229290000}`)}}
	q := Point{Run: "r", K: 1, Recovery: 0, Reopen: []string{line(`{"at":"assistant.retry_wait","generationContext":{"retryPolicy":{"maxAttempts":4,"baseDelayMs":45000,"maxAgentDelayMs":60000}},"notBefore":1767229260000}`)}}
	cs := txChanges(p, q)
	require.Equal(t, []change{
		{"pi.op.state generationContext.retryPolicy.maxAgentDelayMs", "absent", "60000"},
		{"pi.op.state notBefore", "reopen+90000", "reopen+60000"},
	}, cs)
	v := Versions{Releases: Releases[:2], Reports: []Report{{Points: []Point{p}}, {Points: []Point{q}}}}
	require.Zero(t, v.Unexplained())
	r := Point{Run: "r", K: 1, Recovery: 0, Reopen: []string{line(`{"at":"checkpoint"}`)}}
	v.Reports[1].Points = []Point{r}
	require.Positive(t, v.Unexplained())
}
