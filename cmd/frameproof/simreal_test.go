package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/frameproof/frameproof/impl/store/backends"
	"github.com/frameproof/frameproof/sim/lanesim"
	"github.com/frameproof/frameproof/sim/trace"
)

// Golden CLI tests on the real scenario package (sim/lanesim), with budgets
// small enough for go test. The full default campaign runs through the CLI.

func TestSimRealCleanCampaignPasses(t *testing.T) {
	junit := filepath.Join(t.TempDir(), "sim.xml")
	code, stdout, stderr := run("sim", "--backend", "memory", "--seeds", "60", "--json", "--junit", junit, "-q")
	require.Equal(t, exitPass, code, stderr+stdout)
	r := decodeReport(t, stdout)
	assert.Equal(t, "pass", r.Verdict)
	require.NotNil(t, r.Sim)
	assert.Len(t, r.Sim.Scenarios, len(lanesim.Scenarios()))
	assert.Len(t, r.Sim.Cells, len(lanesim.Scenarios()))
	assert.Len(t, r.Sim.Coverage, len(lanesim.RaceRows()), "the scenarios together target every race row")
	for _, c := range r.Sim.Coverage {
		assert.True(t, c.Covered, c.Row)
		require.Len(t, c.Orders, 2)
		assert.Positive(t, c.Orders[0].Runs, c.Row)
		assert.Positive(t, c.Orders[1].Runs, c.Row)
	}
	for _, c := range r.Sim.Cells {
		assert.Equal(t, 60, c.Runs, c.Scenario)
		assert.Positive(t, c.Steps, c.Scenario)
	}
	assert.Empty(t, r.Sim.Failures)

	x := decodeJUnit(t, junit)
	assert.Equal(t, len(lanesim.Scenarios()), x.Tests, "one testcase per scenario x backend")
	assert.Zero(t, x.Failures)
	for _, s := range x.Suites {
		require.Len(t, s.Cases, 1)
		assert.Equal(t, "memory", s.Cases[0].Name)
	}
}

func TestSimRealTooSmallBudgetIsInconclusive(t *testing.T) {
	// No time at all: no cell runs, nothing is covered.
	code, stdout, _ := run("sim", "--budget", "1ns", "--json", "-q")
	require.Equal(t, exitInconclusive, code)
	r := decodeReport(t, stdout)
	assert.Equal(t, "inconclusive", r.Verdict)
	assert.Equal(t, 0, r.Sim.Throughput.Runs)
	assert.Equal(t, backends.Names(), r.Sim.Backends, "the default campaign covers every backend of the registry")
	assert.Len(t, r.Sim.Cells, len(lanesim.Scenarios())*len(backends.Names()))
	for _, c := range r.Sim.Cells {
		assert.Equal(t, "not run", c.Verdict)
		assert.Equal(t, "duration", c.StoppedBy)
	}

	// One simulated step: each cell starts one run, too few to take both
	// orders of every row.
	code, stdout, _ = run("sim", "--backend", "memory", "--budget", "1", "-q")
	require.Equal(t, exitInconclusive, code, stdout)
	assert.Contains(t, stdout, "MISSING")
	assert.Contains(t, stdout, "(1/300 seeds, steps budget)")
	assert.Contains(t, stdout, "verdict: INCONCLUSIVE")
}

func TestSimRealUsage(t *testing.T) {
	code, help, _ := run("sim", "--help")
	require.Equal(t, exitPass, code)
	for _, b := range lanesim.BugNames() {
		assert.Contains(t, help, "\n  "+b+"\n")
	}
	for _, sc := range lanesim.Scenarios() {
		assert.Contains(t, help, "  "+sc.Name+" ")
	}
	// the help lists every backend of the registry
	assert.Contains(t, help, "\nbackends: "+strings.Join(backends.Names(), ", ")+"\n")
	for _, name := range []string{"settle-without-delete", "fence-ignores-response", "ack-before-fsync"} {
		assert.Contains(t, lanesim.BugNames(), name, "the issue names this bug")
	}

	code, _, stderr := run("sim", "--bug", "no-such-bug")
	require.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, `unknown bug "no-such-bug" (valid: `)
	assert.Contains(t, stderr, "settle-without-delete")

	code, _, stderr = run("sim", "--scenario", "mix,nope")
	require.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, `unknown scenario "nope" (valid: `)
	assert.Contains(t, stderr, "append-order")

	code, _, _ = run("sim", "--shard", "1/0")
	assert.Equal(t, exitUsage, code)
	code, _, _ = run("repro", "1", "--scenario", "mix", "--backend", "memory", "--bug", "nope")
	assert.Equal(t, exitUsage, code)
}

func TestReproRealSeedPasses(t *testing.T) {
	dir := t.TempDir()
	tr, html := filepath.Join(dir, "t.jsonl"), filepath.Join(dir, "r.html")
	code, stdout, stderr := run("repro", "3", "--scenario", "mix", "--backend", "jsonl", "--trace", tr, "--html", html)
	require.Equal(t, exitPass, code, stdout+stderr)
	assert.Contains(t, stdout, "verdict: PASS")
	assert.Contains(t, stdout, "(two runs agree)")
	data, err := os.ReadFile(tr)
	require.NoError(t, err)
	recs, err := trace.ParseJSONL(data)
	require.NoError(t, err)
	assert.NotEmpty(t, recs)
	page, err := os.ReadFile(html)
	require.NoError(t, err)
	assert.True(t, strings.Contains(string(page), "porcupine result: Ok"), "porcupine checked the history")
	assert.True(t, strings.Contains(string(page), `<iframe title="porcupine visualization"`), "visualization embedded")
}

// bugCells names, per injected bug, a scenario and backend on which a small
// campaign catches it (from the mutation run of the default campaign; the
// default campaign catches every bug on many more cells).
var bugCells = map[string]struct{ scenario, backend string }{
	"ack-before-fsync":                 {"append-order", "jsonl"},
	"cancel-loses-to-complete":         {"final-frame-vs-settlement", "memory"},
	"compaction-renumbers":             {"compaction", "jsonl"},
	"emit-entry-before-commit":         {"append-order", "memory"},
	"fence-at-enqueue":                 {"append-vs-finalization", "memory"},
	"fence-ignores-response":           {"append-vs-finalization", "jsonl"},
	"frame-after-terminal":             {"append-order", "memory"},
	"recovery-mints-new-ids":           {"crash-with-queued-writes", "memory"},
	"recovery-runs-after-response":     {"crash-with-queued-writes", "memory"},
	"replacement-keeps-old-frames":     {"poll-replacement", "memory"},
	"settle-without-delete":            {"append-order", "memory"},
	"skip-drain":                       {"append-order", "memory"},
	"snapshot-shows-dead-live-partial": {"append-vs-settlement", "memory"},
	"synthetic-nonzero-usage":          {"crash-with-queued-writes", "memory"},
	"torn-tail-as-corruption":          {"swarm", "jsonl"},
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
