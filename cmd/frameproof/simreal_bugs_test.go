//go:build frameproofbugs

package main

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/frameproof/frameproof/sim/choice"
	"github.com/frameproof/frameproof/sim/lanesim"
)

// bugSeedBound bounds the search for a seed that catches a bug in its cell.
const bugSeedBound = 200

// catchingSeed is the first seed from the CLI's default base at which the
// scenario on backend fails with bug injected.
func catchingSeed(scenario, backend, bug string) (uint64, bool) {
	sc, ok := lanesim.ScenarioByName(scenario)
	if !ok {
		return 0, false
	}
	for seed := uint64(defaultBaseSeed); seed < defaultBaseSeed+bugSeedBound; seed++ {
		if sc.Run(choice.NewSeeded(seed), lanesim.Options{Backend: backend, Bugs: []string{bug}}).Failed {
			return seed, true
		}
	}
	return 0, false
}

// bugCells names, per injected bug, a scenario and backend on which it is
// caught (from the mutation run of the default campaign; the default
// campaign catches every bug on many more cells). Which seed of the cell
// catches it moves whenever a schedule changes, so the test searches for it
// (catchingSeed) instead of naming one.
var bugCells = map[string]struct{ scenario, backend string }{
	"ack-before-fsync":                  {"append-order", "jsonl"},
	"cancel-loses-to-complete":          {"mix", "memory"},
	"compaction-renumbers":              {"compaction", "jsonl"},
	"emit-entry-before-commit":          {"append-order", "memory"},
	"fence-at-enqueue":                  {"append-vs-finalization", "memory"},
	"fence-ignores-response":            {"append-vs-finalization", "memory"},
	"frame-after-terminal":              {"append-order", "memory"},
	"frames-first-page-only":            {"swarm", "memory"},
	"resume-reopens-staged":             {"swarm", "memory"},
	"thinking-end-keeps-start-redacted": {"swarm", "memory"},
	"recovery-mints-new-ids":            {"crash-with-queued-writes", "memory"},
	"recovery-runs-after-response":      {"crash-with-queued-writes", "memory"},
	"replacement-keeps-old-frames":      {"poll-replacement", "memory"},
	"settle-without-delete":             {"append-order", "memory"},
	"skip-drain":                        {"append-order", "memory"},
	"snapshot-shows-dead-live-partial":  {"append-vs-settlement", "memory"},
	"synthetic-nonzero-usage":           {"crash-with-queued-writes", "memory"},
	"torn-tail-as-corruption":           {"crash-with-queued-writes", "jsonl"},
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
			seed, ok := catchingSeed(cell.scenario, cell.backend, bug)
			require.True(t, ok, "bug %s is not caught by seeds %d..%d of %s on %s", bug, defaultBaseSeed,
				defaultBaseSeed+bugSeedBound-1, cell.scenario, cell.backend)
			args := []string{"sim", "--scenario", cell.scenario, "--backend", cell.backend, "--seed", strconv.FormatUint(seed, 10),
				"--seeds", "1", "--max-failures", "1", "--shrink-attempts", "20", "-q"}
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
