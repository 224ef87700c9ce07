package provider

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	impl "github.com/frameproof/frameproof/impl/provider"
)

// The correct Go adapter passes a fuzz campaign; a seeded bug fails it with
// reproduction lines that name the seed, and with a corpus directory the
// shrunk failures are saved there, at most MaxSaved per rule set.
func TestFuzzFindsSeededBugAndSaves(t *testing.T) {
	clean, err := Fuzz(FuzzOptions{Wire: impl.WireOpenAIChat, Subject: GoSubject{}, Seeds: 20, Command: "cmd"})
	require.NoError(t, err)
	require.Equal(t, 20, clean.Streams)
	require.Zero(t, clean.Failed, clean.Verdicts)

	dir := t.TempDir()
	var progress []int
	sum, err := Fuzz(FuzzOptions{Wire: impl.WireOpenAIChat, Subject: GoSubject{Bug: impl.BugDropFinalDelta},
		Seed: 30, Seeds: 40, Command: "cmd", CorpusDir: dir, MaxSaved: 1,
		Progress: func(done, _ int) { progress = append(progress, done) }})
	require.NoError(t, err)
	require.Positive(t, sum.Failed)
	require.Equal(t, []int{20}, progress, "called before seed 50 only")
	require.True(t, strings.HasPrefix(sum.Reproducer[0], "cmd --seed "), sum.Reproducer[0])
	require.True(t, strings.HasSuffix(sum.Reproducer[0], " --seeds 1 --save 0"), sum.Reproducer[0])
	require.NotEmpty(t, sum.Corpus)
	require.Less(t, len(sum.Corpus), sum.Failed, "at most one entry per rule set")
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, len(sum.Corpus))
}

// brokenSubject fails to run every stream (a harness error, no verdict).
type brokenSubject struct{}

func (brokenSubject) Name() string { return "broken" }
func (brokenSubject) Run(impl.Wire, Rendered) ([]impl.Event, error) {
	return nil, errors.New("adapter went away")
}

// A stream the harness cannot run stops the campaign with a FuzzError
// naming the seed.
func TestFuzzStopsAtHarnessError(t *testing.T) {
	sum, err := Fuzz(FuzzOptions{Wire: impl.WireAnthropic, Subject: brokenSubject{}, Seed: 7, Seeds: 5})
	var fe *FuzzError
	require.True(t, errors.As(err, &fe), fmt.Sprint(err))
	require.Equal(t, 7, fe.Seed)
	require.Zero(t, sum.Streams)
}
