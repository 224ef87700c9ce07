//go:build frameproofbugs

package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/frameproof/frameproof/sim/lanesim"
)

// bugCells names, per injected bug, a scenario and backend on which a small
// campaign catches it (from the mutation run of the default campaign; the
// default campaign catches every bug on many more cells).
var bugCells = map[string]struct{ scenario, backend string }{
	"ack-before-fsync":                 {"append-order", "jsonl"},
	"cancel-loses-to-complete":         {"mix", "memory"},
	"compaction-renumbers":             {"compaction", "jsonl"},
	"emit-entry-before-commit":         {"append-order", "memory"},
	"fence-at-enqueue":                 {"append-vs-finalization", "memory"},
	"fence-ignores-response":           {"append-vs-finalization", "memory"},
	"frame-after-terminal":             {"append-order", "memory"},
	"recovery-mints-new-ids":           {"crash-with-queued-writes", "memory"},
	"recovery-runs-after-response":     {"crash-with-queued-writes", "memory"},
	"replacement-keeps-old-frames":     {"poll-replacement", "memory"},
	"settle-without-delete":            {"append-order", "memory"},
	"skip-drain":                       {"append-order", "memory"},
	"snapshot-shows-dead-live-partial": {"append-vs-settlement", "memory"},
	"synthetic-nonzero-usage":          {"crash-with-queued-writes", "memory"},
	"torn-tail-as-corruption":          {"crash-with-queued-writes", "jsonl"},
}

// TestSimRealEveryBugFailsWithReproduction: for every injected bug, `sim
// --bug X` exits 1 and prints a reproduction line; that line, run as
// given, fails again; and the same cell without the bug has no failure (so
// the bug, not a pre-existing problem, is what was caught).
func TestSimRealEveryBugFailsWithReproduction(t *testing.T) {
	for _, bug := range lanesim.BugNames() {
		_, ok := bugCells[bug]
		assert.True(t, ok, "bug %s has no entry in bugCells", bug)
	}
	for _, bug := range lanesim.BugNames() {
		cell, ok := bugCells[bug]
		if !ok {
			continue
		}
		t.Run(bug, func(t *testing.T) {
			args := []string{"sim", "--scenario", cell.scenario, "--backend", cell.backend, "--seeds", "10",
				"--max-failures", "1", "--shrink-attempts", "20", "-q"}
			code, stdout, stderr := run(append(args, "--bug", bug)...)
			require.Equal(t, exitFail, code, stdout+stderr)
			m := reproLine.FindAllStringSubmatch(stdout, -1)
			require.Len(t, m, 1, stdout)
			assert.Equal(t, cell.scenario, m[0][3])
			assert.Equal(t, cell.backend, m[0][4])
			assert.Equal(t, bug, m[0][5])
			assert.Regexp(t, `shrunk tape: \d+ -> \d+ choices`, stdout)

			dir := t.TempDir()
			repro := append(strings.Fields(m[0][1])[1:], "--trace", filepath.Join(dir, "t.jsonl"), "--html", filepath.Join(dir, "r.html"), "-q")
			code, out, errs := run(repro...)
			require.Equal(t, exitFail, code, out+errs)
			assert.Contains(t, out, "verdict: FAIL (")

			code, stdout, _ = run(append(args, "--json")...)
			assert.NotEqual(t, exitFail, code, "the cell fails without the bug too")
			assert.Empty(t, decodeReport(t, stdout).Sim.Failures)
		})
	}
}
