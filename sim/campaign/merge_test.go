package campaign

import (
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func shardReport(shard string, orders map[string]int, failures ...ReportedFailure) Report {
	cov := CoverageRow{Row: "R1", Name: "race one"}
	for _, o := range []string{"a-first", "b-first"} {
		cov.Orders = append(cov.Orders, OrderCount{Order: o, Runs: orders[o]})
	}
	cov.Covered = orders["a-first"] > 0 && orders["b-first"] > 0
	runs := orders["a-first"] + orders["b-first"]
	verdict := CellPass
	if len(failures) > 0 {
		verdict = CellFail
	}
	return Report{BaseSeed: 1, Seeds: 20, Shard: shard, Scenarios: []string{"coin"}, Backends: []string{"memory"},
		Cells: []Cell{{Scenario: "coin", Backend: "memory", Planned: 10, Runs: runs, Passed: runs - len(failures),
			Failed: len(failures), Steps: int64(10 * runs), RunSeconds: 2, DurationSeconds: 3, Verdict: verdict}},
		Coverage:   []CoverageRow{cov},
		Throughput: Throughput{Runs: runs, Steps: int64(10 * runs), WallSeconds: 4, Jobs: 2},
		Failures:   failures}
}

// Each shard took one order of R1 only: neither is covered alone, the
// merge is.
func TestMergeUnionsCountsCoverageAndFailures(t *testing.T) {
	f := ReportedFailure{Scenario: "coin", Backend: "memory", Seed: 6, Kind: KindInvariant}
	a := shardReport("1/2", map[string]int{"b-first": 10}, f)
	b := shardReport("0/2", map[string]int{"a-first": 10})
	require.False(t, a.Coverage[0].Covered)
	require.False(t, b.Coverage[0].Covered)

	m, missing, err := Merge([]Report{a, b})
	require.NoError(t, err)
	assert.Equal(t, Missing{}, missing)
	assert.Equal(t, "all/2", m.Shard)
	assert.Equal(t, []string{"0/2", "1/2"}, m.Merged)
	require.Len(t, m.Cells, 1)
	c := m.Cells[0]
	assert.Equal(t, 20, c.Planned)
	assert.Equal(t, 20, c.Runs)
	assert.Equal(t, 19, c.Passed)
	assert.Equal(t, 1, c.Failed)
	assert.Equal(t, int64(200), c.Steps)
	assert.Equal(t, "fail", c.Verdict)
	assert.InDelta(t, 5.0, c.RunsPerSecond, 1e-9, "20 runs in 4 s of run time")
	require.Len(t, m.Coverage, 1)
	assert.True(t, m.Coverage[0].Covered)
	assert.Equal(t, []OrderCount{{"a-first", 10}, {"b-first", 10}}, m.Coverage[0].Orders)
	assert.Equal(t, []ReportedFailure{f}, m.Failures)
	assert.Equal(t, Throughput{Runs: 20, Steps: 200, WallSeconds: 4, Jobs: 4, RunsPerSecond: 5, StepsPerSecond: 50}, m.Throughput)
}

func TestMergeRefusesShardsOfOtherCampaigns(t *testing.T) {
	a := shardReport("0/2", map[string]int{"a-first": 1})
	for name, b := range map[string]Report{
		"other count":    shardReport("1/3", nil),
		"same shard":     shardReport("0/2", nil),
		"other seeds":    func() Report { r := shardReport("1/2", nil); r.Seeds = 30; return r }(),
		"other bugs":     func() Report { r := shardReport("1/2", nil); r.Bugs = []string{"x"}; return r }(),
		"other backends": func() Report { r := shardReport("1/2", nil); r.Backends = []string{"jsonl"}; return r }(),
		"a merge":        func() Report { r := shardReport("1/2", nil); r.Merged = []string{"0/2"}; return r }(),
		"bad shard":      func() Report { r := shardReport("1/2", nil); r.Shard = "x"; return r }(),
	} {
		_, _, err := Merge([]Report{a, b})
		assert.Error(t, err, name)
	}
	_, _, err := Merge(nil)
	assert.Error(t, err)
}

func TestMergeListsMissingShards(t *testing.T) {
	quarter := func(shard string) Report { r := shardReport(shard, nil); r.Cells[0].Planned = 5; return r }
	_, missing, err := Merge([]Report{quarter("2/4"), quarter("0/4")})
	require.NoError(t, err)
	assert.Equal(t, Missing{Count: 2, First: []int{1, 3}}, missing)
}

// A shard count near the largest int, or the legal 20 000 000 of sim
// --shard 0/20000000, is counted, not listed shard by shard (issue 29:
// makeslice panicked on 0/9223372036854775807, and 0/20000000 built one
// entry per absent shard: 2.7 GB).
func TestMergeCountsMissingShardsWithoutListingThemAll(t *testing.T) {
	for _, n := range []int{20_000_000, math.MaxInt} {
		shard := fmt.Sprintf("1/%d", n)
		r := shardReport(shard, nil)
		r.Seeds = 3
		r.Cells[0].Planned = 1
		m, missing, err := Merge([]Report{r})
		require.NoError(t, err, shard)
		assert.Equal(t, n-1, missing.Count)
		require.Len(t, missing.First, MaxMissingListed)
		assert.Equal(t, 0, missing.First[0])
		assert.Equal(t, 2, missing.First[1])
		assert.Equal(t, fmt.Sprintf("all/%d", n), m.Shard)
	}
}

// A shard report is untrusted: one whose counts contradict each other or
// its campaign is refused, naming the field (issue 29: each merged to
// PASS).
func TestMergeRefusesReportsThatContradictThemselves(t *testing.T) {
	f := ReportedFailure{Scenario: "coin", Backend: "memory", Seed: 3, Kind: KindInvariant} // index 2: shard 0/2's
	for name, tc := range map[string]struct {
		edit func(r *Report)
		want string
	}{
		"a failure while the cell says failed 0": {func(r *Report) { r.Failures = []ReportedFailure{f} }, "cells[0] (coin/memory).failed: 0, but failures lists 1"},
		"failed 1 with no failure listed":        {func(r *Report) { r.Cells[0].Failed, r.Cells[0].Passed = 1, r.Cells[0].Passed-1 }, "failed: 1, but failures lists 0"},
		"more runs than planned": {func(r *Report) {
			r.Cells[0].Runs, r.Cells[0].Passed, r.Throughput.Runs = 11, 11, 11
		}, "cells[0] (coin/memory).runs: 11, want 0..planned 10"},
		"planned more than the shard owns":  {func(r *Report) { r.Cells[0].Planned = 11 }, "cells[0] (coin/memory).planned: 11, but shard 0/2 of 20 seeds owns 10"},
		"negative steps":                    {func(r *Report) { r.Cells[0].Steps, r.Throughput.Steps = -5, -5 }, "cells[0] (coin/memory).steps: -5 is negative"},
		"negative runs":                     {func(r *Report) { r.Cells[0].Runs, r.Cells[0].Passed, r.Throughput.Runs = -1, -1, -1 }, "runs: -1"},
		"coverage order with negative runs": {func(r *Report) { r.Coverage[0].Orders[1].Runs = -3 }, "coverage[0] (R1).orders[1] (b-first).runs: -3 is negative"},
		"coverage order beyond the runs":    {func(r *Report) { r.Coverage[0].Orders[1].Runs = 1000 }, "more than the shard's 10 runs"},
		"failure of another shard's seed":   {func(r *Report) { f := f; f.Seed = 2; r.Failures = []ReportedFailure{f} }, "failures[0] (coin/memory seed 2).seed: not one of shard 0/2's seeds"},
		"failure of no cell":                {func(r *Report) { f := f; f.Backend = "jsonl"; r.Failures = []ReportedFailure{f} }, "no cell coin/jsonl in cells"},
		"cell of no scenario":               {func(r *Report) { r.Cells[0].Scenario = "other" }, `cells[0] (other/memory).scenario: "other" is not in scenarios`},
		"throughput disagrees":              {func(r *Report) { r.Throughput.Runs = 99 }, "throughput.runs: 99, but the cells ran 10"},
		"negative seeds":                    {func(r *Report) { r.Seeds = -20 }, "seeds -20"},
	} {
		r := shardReport("0/2", map[string]int{"a-first": 5, "b-first": 5})
		tc.edit(&r)
		_, _, err := Merge([]Report{r})
		if assert.Error(t, err, name) {
			assert.Contains(t, err.Error(), tc.want, name)
			assert.Contains(t, err.Error(), "shard 0/2 contradicts itself", name)
		}
	}
}

func TestShardFromEnv(t *testing.T) {
	env := func(kv ...string) func(string) string {
		m := map[string]string{}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return func(k string) string { return m[k] }
	}
	i, n, err := ShardFromEnv(env(EnvShardIndex, "2", EnvShardCount, "4"))
	require.NoError(t, err)
	assert.Equal(t, [2]int{2, 4}, [2]int{i, n})
	i, n, err = ShardFromEnv(env(EnvJobIndex, "3", EnvShardCount, "4"))
	require.NoError(t, err)
	assert.Equal(t, [2]int{3, 4}, [2]int{i, n})
	i, _, err = ShardFromEnv(env(EnvShardIndex, "1", EnvJobIndex, "3", EnvShardCount, "4"))
	require.NoError(t, err)
	assert.Equal(t, 1, i, "the explicit variable wins over Kubernetes'")
	for _, e := range []func(string) string{
		env(), env(EnvShardIndex, "1"), env(EnvShardCount, "4"),
		env(EnvShardIndex, "4", EnvShardCount, "4"), env(EnvShardIndex, "x", EnvShardCount, "4"),
		env(EnvJobIndex, "-1", EnvShardCount, "4"),
	} {
		_, _, err := ShardFromEnv(e)
		assert.Error(t, err)
	}
}
