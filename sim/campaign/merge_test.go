package campaign

import (
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
	return Report{BaseSeed: 1, Seeds: 20, Shard: shard, Scenarios: []string{"coin"}, Backends: []string{"memory"},
		Cells: []Cell{{Scenario: "coin", Backend: "memory", Planned: 10, Runs: runs, Passed: runs - len(failures),
			Failed: len(failures), Steps: int64(10 * runs), RunSeconds: 2, DurationSeconds: 3, Verdict: "pass"}},
		Coverage:   []CoverageRow{cov},
		Throughput: Throughput{Runs: runs, Steps: int64(10 * runs), WallSeconds: 4, Jobs: 2},
		Failures:   failures}
}

// Each shard took one order of R1 only: neither is covered alone, the
// merge is.
func TestMergeUnionsCountsCoverageAndFailures(t *testing.T) {
	f := ReportedFailure{Scenario: "coin", Backend: "memory", Seed: 6, Kind: "invariant"}
	a := shardReport("1/2", map[string]int{"b-first": 10}, f)
	b := shardReport("0/2", map[string]int{"a-first": 10})
	require.False(t, a.Coverage[0].Covered)
	require.False(t, b.Coverage[0].Covered)

	m, missing, err := Merge([]Report{a, b})
	require.NoError(t, err)
	assert.Empty(t, missing)
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
	_, missing, err := Merge([]Report{shardReport("2/4", nil), shardReport("0/4", nil)})
	require.NoError(t, err)
	assert.Equal(t, []int{1, 3}, missing)
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
