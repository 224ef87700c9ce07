package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/frameproof/frameproof/sim/campaign"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// shardRun runs one shard of a fake campaign and returns its report file.
func shardRun(t *testing.T, dir string, shard string, extra ...string) (string, int) {
	t.Helper()
	args := append([]string{"sim", "--scenario", "coin,rare", "--backend", "memory,jsonl", "--seeds", "30", "--json", "-q",
		"--shard", shard}, extra...)
	code, stdout, stderr := run(args...)
	path := filepath.Join(dir, "sim-"+shard[:1]+".json")
	require.NoError(t, os.WriteFile(path, []byte(stdout), 0o644), stderr)
	return path, code
}

// Merging the shards of a campaign gives the campaign: the same cells,
// counts, coverage and failures as running it unsharded.
func TestMergeOfShardsEqualsTheWholeCampaign(t *testing.T) {
	withSuite(t, fakeSuite{})
	dir := t.TempDir()
	code, whole, stderr := run("sim", "--scenario", "coin,rare", "--backend", "memory,jsonl", "--seeds", "30", "--json", "-q", "--bug", "big-value", "--max-failures", "0", "--shrink-attempts", "0")
	require.Equal(t, exitFail, code, stderr)
	w := decodeReport(t, whole)

	var files []string
	for i := range 3 {
		f, _ := shardRun(t, dir, fmt.Sprintf("%d/3", i), "--bug", "big-value", "--defer-coverage", "--max-failures", "0", "--shrink-attempts", "0")
		files = append(files, f)
	}
	junit := filepath.Join(dir, "merged.xml")
	code, out, stderr := run(append([]string{"merge", "--json", "--junit", junit}, files...)...)
	require.Equal(t, exitFail, code, stderr)
	m := decodeReport(t, out)
	require.NotNil(t, m.Sim)
	assert.Equal(t, "fail", m.Verdict)
	assert.Equal(t, "all/3", m.Sim.Shard)
	assert.Equal(t, []string{"0/3", "1/3", "2/3"}, m.Sim.Merged)
	assert.Equal(t, w.Tests, m.Tests)
	assert.Equal(t, w.Failed, m.Failed)
	require.Len(t, m.Sim.Cells, len(w.Sim.Cells))
	for i, c := range w.Sim.Cells {
		got := m.Sim.Cells[i]
		assert.Equal(t, [6]any{c.Scenario, c.Backend, c.Planned, c.Runs, c.Passed, c.Failed},
			[6]any{got.Scenario, got.Backend, got.Planned, got.Runs, got.Passed, got.Failed})
		assert.Equal(t, c.Steps, got.Steps)
	}
	assert.Equal(t, w.Sim.Coverage, m.Sim.Coverage)
	require.Len(t, m.Sim.Failures, len(w.Sim.Failures))
	for i, f := range w.Sim.Failures {
		assert.Equal(t, [3]any{f.Scenario, f.Backend, f.Seed}, [3]any{m.Sim.Failures[i].Scenario, m.Sim.Failures[i].Backend, m.Sim.Failures[i].Seed})
		assert.Equal(t, f.Repro, m.Sim.Failures[i].Repro)
	}
	x := decodeJUnit(t, junit)
	assert.Equal(t, w.Failed, x.Failures)
}

// A shard that defers coverage passes on its own even when it misses a race
// order; the merge judges coverage over every shard and is inconclusive when
// no shard took an order (rare's "rare") or a shard is missing.
func TestMergeJudgesCoverageOverAllShards(t *testing.T) {
	withSuite(t, fakeSuite{})
	dir := t.TempDir()
	_, code := shardRun(t, t.TempDir(), "0/2")
	assert.Equal(t, exitInconclusive, code, "without --defer-coverage a shard judges its own coverage")
	a, code := shardRun(t, dir, "0/2", "--defer-coverage")
	assert.Equal(t, exitPass, code)
	code, text, _ := run("sim", "--scenario", "coin,rare", "--backend", "memory", "--seeds", "30", "-q", "--shard", "0/2", "--defer-coverage")
	assert.Equal(t, exitPass, code)
	assert.Contains(t, text, "its verdict is left to `frameproof merge` of all shards")
	b, code := shardRun(t, dir, "1/2", "--defer-coverage")
	assert.Equal(t, exitPass, code)

	code, out, stderr := run("merge", a, b)
	assert.Equal(t, exitInconclusive, code, stderr)
	assert.Contains(t, out, `race coverage incomplete: no run took R2 "rare"`)
	assert.Contains(t, out, "merged 2 shard reports (0/2, 1/2)")

	code, out, _ = run("merge", a)
	assert.Equal(t, exitInconclusive, code)
	assert.Contains(t, out, "shard reports missing: 1/2")

	code, _, stderr = run("merge", a, a)
	assert.Equal(t, exitUsage, code)
	assert.Equal(t, "frameproof merge: shard 0/2 given twice\n", stderr)

	other := filepath.Join(dir, "other.json")
	code, stdout, _ := run("sim", "--scenario", "coin", "--backend", "memory", "--seeds", "30", "--json", "-q", "--shard", "1/2")
	require.Equal(t, exitPass, code)
	require.NoError(t, os.WriteFile(other, []byte(stdout), 0o644))
	code, _, stderr = run("merge", a, other)
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, "is not part of the campaign of shard 0/2: scenarios [coin], not [coin rare]")

	code, _, stderr = run("merge", filepath.Join(dir, "none.json"))
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, "none.json: no such file")
	notSim := filepath.Join(dir, "corpus.json")
	require.NoError(t, os.WriteFile(notSim, []byte(`{"schema":1,"command":"corpus run"}`), 0o644))
	code, _, stderr = run("merge", notSim)
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, "not a sim report")
}

// --shard auto takes the shard from the CI environment.
func TestSimShardAuto(t *testing.T) {
	withSuite(t, fakeSuite{})
	t.Setenv("FRAMEPROOF_SHARD_INDEX", "")
	t.Setenv("JOB_COMPLETION_INDEX", "2")
	t.Setenv("FRAMEPROOF_SHARD_COUNT", "3")
	code, stdout, stderr := run("sim", "--scenario", "coin", "--backend", "memory", "--seeds", "30", "--json", "-q", "--shard", "auto")
	require.Equal(t, exitPass, code, stderr)
	assert.Equal(t, "2/3", decodeReport(t, stdout).Sim.Shard)

	t.Setenv("FRAMEPROOF_SHARD_COUNT", "")
	code, _, stderr = run("sim", "--scenario", "coin", "--shard", "auto")
	assert.Equal(t, exitUsage, code)
	assert.Equal(t, "frameproof sim: --shard auto: set FRAMEPROOF_SHARD_INDEX (or Kubernetes' JOB_COMPLETION_INDEX) and FRAMEPROOF_SHARD_COUNT\n", stderr)
}

// writeShardReport writes one sim --json report of the fake suite as a
// shard of n, with the given index, for merge to read.
func writeShardReport(t *testing.T, dir string, shard string, edit func(r *campaign.Report)) string {
	t.Helper()
	r := campaign.Report{BaseSeed: 1, Seeds: 3, Shard: shard, Scenarios: []string{"coin"}, Backends: []string{"memory"},
		Cells:    []campaign.Cell{{Scenario: "coin", Backend: "memory", Planned: 1, Runs: 1, Passed: 1, Steps: 4, Verdict: "pass"}},
		Coverage: []campaign.CoverageRow{}, Failures: []campaign.ReportedFailure{},
		Throughput: campaign.Throughput{Runs: 1, Steps: 4, Jobs: 1}, Verdict: "pass", CoverageDeferred: true}
	if shard == "0/1" { // owns all 3 seeds
		c := &r.Cells[0]
		c.Planned, c.Runs, c.Passed, c.Steps = 3, 3, 3, 12
		r.Throughput.Runs, r.Throughput.Steps = 3, 12
	}
	for _, row := range coverageGoalsOf(r.Scenarios) { // the rows its scenarios cover, one run took each order
		r.Coverage = append(r.Coverage, campaign.CoverageRow{Row: row.ID, Name: row.Name, Covered: true,
			Orders: []campaign.OrderCount{{Order: row.Orders[0], Runs: 1}, {Order: row.Orders[1], Runs: 1}}})
	}
	if edit != nil {
		edit(&r)
	}
	b, err := json.Marshal(Report{Schema: ReportSchema, Command: "sim", Verdict: r.Verdict, Sim: &r})
	require.NoError(t, err)
	path := filepath.Join(dir, strings.ReplaceAll(shard, "/", "-")+".json")
	require.NoError(t, os.WriteFile(path, b, 0o644))
	return path
}

// A report of shard 1 of 2^63-1 is merged without a panic, and of 20 000
// 000 without one entry per absent shard: the missing shards are a count
// and the first 20 (issue 29: makeslice panicked; 2.7 GB and a 369 MB line).
func TestMergeHugeShardCountsAreCounted(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []int{math.MaxInt64, 20_000_000} {
		path := writeShardReport(t, dir, fmt.Sprintf("1/%d", n), nil)
		code, stdout, stderr := run("merge", path)
		assert.Equal(t, exitInconclusive, code, stderr)
		assert.Contains(t, stdout, fmt.Sprintf("shard reports missing: %d of %d, the first 20: 0/%d, 2/%d,", n-1, n, n, n))
		assert.Less(t, len(stdout), 8<<10, "the report stays small")
	}
}

// A report that contradicts itself is refused, exit 2, naming the field
// (issue 29: a failure listed while its cell says failed 0 merged to PASS).
func TestMergeRefusesAReportThatContradictsItself(t *testing.T) {
	withSuite(t, fakeSuite{})
	dir := t.TempDir()
	for want, edit := range map[string]func(r *campaign.Report){
		"cells[0] (coin/memory).failed: 0, but failures lists 1": func(r *campaign.Report) {
			r.Failures = []campaign.ReportedFailure{{Scenario: "coin", Backend: "memory", Seed: 1, Kind: campaign.KindInvariant}}
		},
		"cells[0] (coin/memory).runs: 5, want 0..planned 3": func(r *campaign.Report) {
			r.Cells[0].Runs, r.Cells[0].Passed, r.Throughput.Runs = 5, 5, 5
		},
		"cells[0] (coin/memory).steps: -4 is negative": func(r *campaign.Report) { r.Cells[0].Steps, r.Throughput.Steps = -4, -4 },
		// the outside review of this round: each of these merged to PASS
		"coverage: 0 rows, want the suite's":                     func(r *campaign.Report) { r.Coverage = nil },
		"coverage[0].row \"bogus\"":                              func(r *campaign.Report) { r.Coverage[0].Row = "bogus" },
		"orders [{zzz 1}":                                        func(r *campaign.Report) { r.Coverage[0].Orders[0].Order = "zzz" },
		"cells[0] (coin/memory).verdict: \"fail\", but failed 0": func(r *campaign.Report) { r.Cells[0].Verdict = "fail" },
		"verdict: \"fail\", but no failure and no cell error":    func(r *campaign.Report) { r.Verdict = "fail" },
	} {
		path := writeShardReport(t, dir, "0/1", edit)
		code, stdout, stderr := run("merge", path)
		assert.Equal(t, exitUsage, code, stdout+stderr)
		assert.Contains(t, stderr, want)
		assert.Empty(t, stdout)
	}
	code, _, stderr := run("merge", writeShardReport(t, dir, "0/1", nil))
	assert.Equal(t, exitPass, code, stderr)
}
