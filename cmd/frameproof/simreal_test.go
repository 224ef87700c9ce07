package main

import (
	"os"
	"path/filepath"
	"strconv"
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

// cleanSeeds is the clean campaign's seeds per cell: enough for every race
// row's orders on one backend (suspended-without-permit first appears
// after seed 60 since the swarm's threshold draw and the on-line events,
// as TestRaceCoverage's search found).
const cleanSeeds = 120

func TestSimRealCleanCampaignPasses(t *testing.T) {
	junit := filepath.Join(t.TempDir(), "sim.xml")
	code, stdout, stderr := run("sim", "--backend", "memory", "--seeds", strconv.Itoa(cleanSeeds), "--json", "--junit", junit, "-q")
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
		assert.Equal(t, cleanSeeds, c.Runs, c.Scenario)
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
