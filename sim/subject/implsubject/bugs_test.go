//go:build frameproofbugs

package implsubject

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/frameproof/frameproof/impl/lane"
)

// The boundary catches impl/lane's planted bugs its scenarios reach: each
// bug switched on in every lane process fails the subject campaign. The
// ones it does not reach are named with why, and a run shows each still
// unreached (a list gone stale fails).
func TestCampaignCatchesLaneBugs(t *testing.T) {
	unreachable := map[string]string{
		"cancel-loses-to-complete":         "a cancel committed, then a crash before its reconciliation: no scenario draws abort and kill together",
		"fence-at-enqueue":                 "an append whose response lost the fence between enqueue and commit needs external finalization or a deferred replacement (not expressible); the gate lands appends ahead of the settlement behind them",
		"fence-ignores-response":           "as fence-at-enqueue: no append reaches the line after its response lost the fence",
		"recovery-runs-after-response":     "the boundary's harness registers no after_response hook (nor does pi's driver), so running it is unobservable",
		"replacement-keeps-old-frames":     "deferred poll replacement is not expressible (subject.NotExpressible)",
		"snapshot-shows-dead-live-partial": "it changes Lane.Snapshot's live partial; Lane.watch is captureLaneSnapshot (Capture), which never shows one",
		"synthetic-nonzero-usage":          "the runner compares entries and usage rows by id and parent only (model/lane states no row values), so a recovery's usage row is not compared",
	}
	for _, bug := range lane.BugNames() {
		t.Run(bug, func(t *testing.T) {
			rep := campaign(t, 4, Options{Bugs: []string{bug}})
			if why, ok := unreachable[bug]; ok {
				require.Empty(t, rep.Failures, "%s is listed as unreached (%s), yet the campaign caught it: list it as caught", bug, why)
				return
			}
			require.NotEmpty(t, rep.Failures, "the campaign passed with %s on", bug)
			f := rep.Failures[0]
			t.Logf("caught: %s/%s seed %d (%s)", f.Outcome.Scenario, f.Outcome.Session, f.Seed, f.Outcome.Kind)
		})
	}
}
