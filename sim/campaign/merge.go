package campaign

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Merge unions the reports of the shards of one campaign into one report:
// per-cell counts and times add up, race coverage adds up per order (so a
// row is covered when any shard took each of its orders), failures are
// listed by cell and seed. Wall time is the slowest shard's (shards run
// in parallel) and jobs add up.
//
// The shards must describe the same campaign (base seed, seeds, budget,
// bugs, scenarios, backends, shard count), each shard at most once. Shards
// that are absent are listed in missing: the caller decides what an
// incomplete merge means (its counts and coverage are partial). The
// returned report has no Verdict: the caller judges it.
func Merge(shards []Report) (merged Report, missing []int, err error) {
	if len(shards) == 0 {
		return Report{}, nil, errors.New("campaign: merge: no shard reports")
	}
	first := shards[0]
	_, n, err := ParseShard(first.Shard)
	if err != nil {
		return Report{}, nil, fmt.Errorf("campaign: merge: shard 1: %w", err)
	}
	seen := make([]bool, n)
	for i, s := range shards {
		idx, cnt, err := ParseShard(s.Shard)
		if err != nil {
			return Report{}, nil, fmt.Errorf("campaign: merge: shard %d: %w", i+1, err)
		}
		if diff := sameCampaign(first, s, n, cnt); diff != "" {
			return Report{}, nil, fmt.Errorf("campaign: merge: shard %s is not part of the campaign of shard %s: %s", s.Shard, first.Shard, diff)
		}
		if seen[idx] {
			return Report{}, nil, fmt.Errorf("campaign: merge: shard %s given twice", s.Shard)
		}
		seen[idx] = true
	}
	for i, ok := range seen {
		if !ok {
			missing = append(missing, i)
		}
	}

	merged = Report{BaseSeed: first.BaseSeed, Seeds: first.Seeds, Shard: fmt.Sprintf("all/%d", n), Budget: first.Budget,
		Bugs: first.Bugs, Scenarios: first.Scenarios, Backends: first.Backends,
		Cells: []Cell{}, Coverage: []CoverageRow{}, Failures: []ReportedFailure{}}
	for _, s := range shards {
		merged.Merged = append(merged.Merged, s.Shard)
		mergeCells(&merged, s.Cells)
		mergeCoverage(&merged, s.Coverage)
		merged.Failures = append(merged.Failures, s.Failures...)
		t := &merged.Throughput
		t.Runs += s.Throughput.Runs
		t.Steps += s.Throughput.Steps
		t.Crashes += s.Throughput.Crashes
		t.DistinctCrashImages += s.Throughput.DistinctCrashImages
		t.Jobs += s.Throughput.Jobs
		t.WallSeconds = max(t.WallSeconds, s.Throughput.WallSeconds)
	}
	slices.SortFunc(merged.Merged, func(a, b string) int { return cmp.Compare(shardIndex(a), shardIndex(b)) })
	if t := &merged.Throughput; t.WallSeconds > 0 {
		t.RunsPerSecond = float64(t.Runs) / t.WallSeconds
		t.StepsPerSecond = float64(t.Steps) / t.WallSeconds
	}
	for i := range merged.Cells {
		finishCell(&merged.Cells[i])
	}
	// Failures in the campaign's own order: by cell (scenarios x backends,
	// as run), then by seed, as an unsharded run lists them.
	cellOf := func(f ReportedFailure) int {
		return slices.IndexFunc(merged.Cells, func(c Cell) bool { return c.Scenario == f.Scenario && c.Backend == f.Backend })
	}
	slices.SortStableFunc(merged.Failures, func(a, b ReportedFailure) int {
		return cmp.Or(cmp.Compare(cellOf(a), cellOf(b)), cmp.Compare(a.Seed, b.Seed))
	})
	return merged, missing, nil
}

// sameCampaign says how s differs from first ("" when it does not).
func sameCampaign(first, s Report, n, cnt int) string {
	switch {
	case cnt != n:
		return fmt.Sprintf("%d shards, not %d", cnt, n)
	case s.BaseSeed != first.BaseSeed || s.Seeds != first.Seeds:
		return fmt.Sprintf("seeds %d+%d, not %d+%d", s.BaseSeed, s.Seeds, first.BaseSeed, first.Seeds)
	case s.Budget != first.Budget:
		return fmt.Sprintf("budget %q, not %q", s.Budget, first.Budget)
	case !slices.Equal(s.Bugs, first.Bugs):
		return fmt.Sprintf("bugs %v, not %v", s.Bugs, first.Bugs)
	case !slices.Equal(s.Scenarios, first.Scenarios):
		return fmt.Sprintf("scenarios %v, not %v", s.Scenarios, first.Scenarios)
	case !slices.Equal(s.Backends, first.Backends):
		return fmt.Sprintf("backends %v, not %v", s.Backends, first.Backends)
	case len(s.Merged) > 0:
		return "it is already a merge"
	}
	return ""
}

func shardIndex(s string) int {
	i, _, _ := ParseShard(s)
	return i
}

// mergeCells adds cells into m.Cells (matched by scenario and backend).
func mergeCells(m *Report, cells []Cell) {
	for _, c := range cells {
		i := slices.IndexFunc(m.Cells, func(x Cell) bool { return x.Scenario == c.Scenario && x.Backend == c.Backend })
		if i < 0 {
			m.Cells = append(m.Cells, Cell{Scenario: c.Scenario, Backend: c.Backend})
			i = len(m.Cells) - 1
		}
		x := &m.Cells[i]
		x.Planned += c.Planned
		x.Runs += c.Runs
		x.Passed += c.Passed
		x.Failed += c.Failed
		x.Steps += c.Steps
		// Shards run different seeds, but two shards may still reach the
		// same disk image: the merged distinct count is an upper bound.
		x.Crashes += c.Crashes
		x.DistinctCrashImages += c.DistinctCrashImages
		x.DurationSeconds += c.DurationSeconds
		x.RunSeconds += c.RunSeconds
		x.StoppedBy = cmp.Or(x.StoppedBy, c.StoppedBy)
		if c.Error != "" {
			x.Error = strings.TrimPrefix(x.Error+"; "+c.Error, "; ")
		}
	}
}

// finishCell recomputes a merged cell's rates and verdict.
func finishCell(c *Cell) {
	c.RunsPerSecond, c.StepsPerSecond = 0, 0
	if c.RunSeconds > 0 {
		c.RunsPerSecond = float64(c.Runs) / c.RunSeconds
		c.StepsPerSecond = float64(c.Steps) / c.RunSeconds
	}
	switch {
	case c.Error != "":
		c.Verdict = "error"
	case c.Failed > 0:
		c.Verdict = "fail"
	case c.Runs == 0:
		c.Verdict = "not run"
	default:
		c.Verdict = "pass"
	}
}

// mergeCoverage adds the order counts of rows into m.Coverage.
func mergeCoverage(m *Report, rows []CoverageRow) {
	for _, r := range rows {
		i := slices.IndexFunc(m.Coverage, func(x CoverageRow) bool { return x.Row == r.Row })
		if i < 0 {
			m.Coverage = append(m.Coverage, CoverageRow{Row: r.Row, Name: r.Name})
			i = len(m.Coverage) - 1
		}
		x := &m.Coverage[i]
		for _, o := range r.Orders {
			j := slices.IndexFunc(x.Orders, func(y OrderCount) bool { return y.Order == o.Order })
			if j < 0 {
				x.Orders = append(x.Orders, OrderCount{Order: o.Order})
				j = len(x.Orders) - 1
			}
			x.Orders[j].Runs += o.Runs
		}
		x.Covered = len(x.Orders) > 0
		for _, o := range x.Orders {
			x.Covered = x.Covered && o.Runs > 0
		}
	}
}

// Environment variables --shard auto reads (ShardFromEnv).
const (
	EnvShardIndex = "FRAMEPROOF_SHARD_INDEX" // set by the CI recipe, e.g. from a GitHub matrix value
	EnvShardCount = "FRAMEPROOF_SHARD_COUNT"
	// EnvJobIndex is set by Kubernetes on every pod of an indexed Job
	// (completionMode: Indexed); the count still comes from EnvShardCount.
	EnvJobIndex = "JOB_COMPLETION_INDEX"
)

// ShardFromEnv reads this machine's shard from the CI environment: the
// index from FRAMEPROOF_SHARD_INDEX, else Kubernetes' JOB_COMPLETION_INDEX;
// the count from FRAMEPROOF_SHARD_COUNT. getenv is os.Getenv outside tests.
func ShardFromEnv(getenv func(string) string) (shard, shards int, err error) {
	index, from := getenv(EnvShardIndex), EnvShardIndex
	if index == "" {
		index, from = getenv(EnvJobIndex), EnvJobIndex
	}
	count := getenv(EnvShardCount)
	if index == "" || count == "" {
		return 0, 0, fmt.Errorf("campaign: shard auto: set %s (or Kubernetes' %s) and %s", EnvShardIndex, EnvJobIndex, EnvShardCount)
	}
	if _, err := strconv.Atoi(index); err != nil {
		return 0, 0, fmt.Errorf("campaign: shard auto: %s=%q is not a number", from, index)
	}
	shard, shards, err = ParseShard(index + "/" + count)
	if err != nil {
		return 0, 0, fmt.Errorf("campaign: shard auto: %s=%s, %s=%s: want 0 <= index < count", from, index, EnvShardCount, count)
	}
	return shard, shards, nil
}
