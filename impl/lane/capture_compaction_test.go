package lane

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// runtime/lane.ts captureLaneSnapshot reads the transcript with
// scanBranch({start: tipId, stopAtType: "compaction", order:
// "newestFirst"}): the branch from the tip back to its newest compaction
// entry, that entry included, oldest first; with no compaction, back to
// the root. Snapshot (frameproof's view) reads the same transcript.
func TestCaptureTranscriptStopsAtTheNewestCompaction(t *testing.T) {
	for _, c := range []struct {
		ids, want []string
	}{
		{[]string{"u0", "u1", "u2"}, []string{"u0", "u1", "u2"}},
		{[]string{"u0", "c1", "u2"}, []string{"c1", "u2"}},
		{[]string{"u0", "c1", "u2", "c3", "u4"}, []string{"c3", "u4"}},
		{[]string{"u0", "c1"}, []string{"c1"}},
	} {
		h := newHarness(t, registryBackends()[0])
		h.seedCheckpoint(t, "op1", c.ids[len(c.ids)-1], c.ids...)
		l := h.openSeeded()
		for _, read := range []func() (*Snapshot, error){l.Capture, l.Snapshot} {
			s, err := read()
			require.NoError(t, err)
			var got []string
			for _, e := range s.Transcript {
				got = append(got, e.ID)
			}
			require.Equal(t, c.want, got, "branch %v", c.ids)
		}
	}
}
