package campaign

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// MaxMissingListed bounds the shards a Missing lists by index.
const MaxMissingListed = 20

// Missing is what a merge lacks: how many of the campaign's shards no
// report was given for, and the first of them (at most MaxMissingListed,
// ascending). A report's shard count is untrusted and may be huge (sim
// --shard 0/20000000 is legal), so missing shards are counted, never
// listed one by one.
type Missing struct {
	Count int
	First []int
}

// Merge unions the reports of the shards of one campaign into one report:
// per-cell counts and times add up, race coverage adds up per order (so a
// row is covered when any shard took each of its orders), failures are
// listed by cell and seed. Wall time is the slowest shard's (shards run
// in parallel) and jobs add up.
//
// Every report is untrusted input: one that contradicts itself (Validate)
// or its campaign is refused with an error naming the field. The shards
// must describe the same campaign (base seed, seeds, budget, bugs,
// scenarios, backends, shard count), each shard at most once. Shards that
// are absent are counted in missing: the caller decides what an
// incomplete merge means (its counts and coverage are partial). The
// returned report has no Verdict: the caller judges it.
func Merge(shards []Report) (merged Report, missing Missing, err error) {
	if len(shards) == 0 {
		return Report{}, Missing{}, errors.New("campaign: merge: no shard reports")
	}
	first := shards[0]
	_, n, err := ParseShard(first.Shard)
	if err != nil {
		return Report{}, Missing{}, fmt.Errorf("campaign: merge: shard 1: %w", err)
	}
	seen := make(map[int]bool, len(shards))
	for i, s := range shards {
		idx, cnt, err := ParseShard(s.Shard)
		if err != nil {
			return Report{}, Missing{}, fmt.Errorf("campaign: merge: shard %d: %w", i+1, err)
		}
		if diff := sameCampaign(first, s, n, cnt); diff != "" {
			return Report{}, Missing{}, fmt.Errorf("campaign: merge: shard %s is not part of the campaign of shard %s: %s", s.Shard, first.Shard, diff)
		}
		if err := Validate(s); err != nil {
			return Report{}, Missing{}, fmt.Errorf("campaign: merge: %w", err)
		}
		if seen[idx] {
			return Report{}, Missing{}, fmt.Errorf("campaign: merge: shard %s given twice", s.Shard)
		}
		seen[idx] = true
	}
	missing.Count = n - len(seen)
	for i := 0; i < n && len(missing.First) < min(missing.Count, MaxMissingListed); i++ {
		if !seen[i] {
			missing.First = append(missing.First, i)
		}
	}

	merged = Report{BaseSeed: first.BaseSeed, Seeds: first.Seeds, Shard: fmt.Sprintf("all/%d", n), Budget: first.Budget,
		Bugs: first.Bugs, Scenarios: first.Scenarios, Backends: first.Backends,
		Cells: []Cell{}, Coverage: []CoverageRow{}, Failures: []ReportedFailure{}}
	for _, s := range shards {
		merged.Merged = append(merged.Merged, s.Shard)
		mergeCells(&merged, s.Cells)
		mergeCoverage(&merged, s.Coverage)
		mergeReach(&merged, s.Reach)
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

// anyCellError reports whether a cell ended in an error of the harness.
func anyCellError(cells []Cell) bool {
	for _, c := range cells {
		if c.Error != "" || c.Verdict == CellError {
			return true
		}
	}
	return false
}

// ValidateCoverage checks a shard report's race coverage against the
// suite's race rows, which come from the registry, not from the report:
// every row once, in the registry's order, each with exactly its two
// orders. A report that drops, renames or invents a row or an order would
// otherwise merge to a coverage verdict about rows nobody ran.
func ValidateCoverage(r Report, rows []RaceRow) error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("shard %s: coverage: %s", r.Shard, fmt.Sprintf(format, a...))
	}
	if len(r.Coverage) != len(rows) {
		return bad("%d rows, want the suite's %d", len(r.Coverage), len(rows))
	}
	for i, want := range rows {
		got := r.Coverage[i]
		if got.Row != want.ID {
			return bad("coverage[%d].row %q, want %q", i, got.Row, want.ID)
		}
		if len(got.Orders) != 2 || got.Orders[0].Order != want.Orders[0] || got.Orders[1].Order != want.Orders[1] {
			return bad("coverage[%d] (%s): orders %v, want %s and %s", i, got.Row, got.Orders, want.Orders[0], want.Orders[1])
		}
	}
	return nil
}

// Validate checks a shard report (sim --json) as untrusted input: every
// count it states must agree with the others and with its campaign. The
// error names the first field that does not. What Merge recomputes (rates,
// verdicts, a row's covered flag) is not checked.
func Validate(r Report) error {
	idx, n, err := ParseShard(r.Shard)
	if err != nil {
		return fmt.Errorf("shard %q: %w", r.Shard, err)
	}
	bad := func(format string, a ...any) error {
		return fmt.Errorf("shard %s contradicts itself: %s", r.Shard, fmt.Sprintf(format, a...))
	}
	if r.Seeds < 1 {
		return bad("seeds %d, want >= 1", r.Seeds)
	}
	planned := PlannedSeeds(r.Seeds, idx, n)
	type cellKey struct{ scenario, backend string }
	failed := map[cellKey]int{}
	cells := map[cellKey]int{}
	var runs, crashes, images int
	var steps int64
	for i, c := range r.Cells {
		k := cellKey{c.Scenario, c.Backend}
		field := fmt.Sprintf("cells[%d] (%s/%s)", i, c.Scenario, c.Backend)
		switch {
		case !slices.Contains(r.Scenarios, c.Scenario):
			return bad("%s.scenario: %q is not in scenarios %v", field, c.Scenario, r.Scenarios)
		case !slices.Contains(r.Backends, c.Backend):
			return bad("%s.backend: %q is not in backends %v", field, c.Backend, r.Backends)
		case cells[k] > 0:
			return bad("%s: the cell is listed twice", field)
		case c.Planned != planned:
			return bad("%s.planned: %d, but shard %s of %d seeds owns %d", field, c.Planned, r.Shard, r.Seeds, planned)
		case c.Runs < 0 || c.Runs > c.Planned:
			return bad("%s.runs: %d, want 0..planned %d", field, c.Runs, c.Planned)
		case c.Passed < 0 || c.Failed < 0 || c.Passed+c.Failed != c.Runs:
			return bad("%s: passed %d + failed %d, want runs %d", field, c.Passed, c.Failed, c.Runs)
		case c.Steps < 0:
			return bad("%s.steps: %d is negative", field, c.Steps)
		case c.Crashes < 0 || c.DistinctCrashImages < 0 || c.DistinctCrashImages > c.Crashes:
			return bad("%s: crashes %d, distinctCrashImages %d, want 0 <= distinct <= crashes", field, c.Crashes, c.DistinctCrashImages)
		case !(c.DurationSeconds >= 0) || !(c.RunSeconds >= 0):
			return bad("%s: durationSeconds %v, runSeconds %v must not be negative", field, c.DurationSeconds, c.RunSeconds)
		}
		if runs > math.MaxInt-c.Runs || steps > math.MaxInt64-c.Steps {
			return bad("%s: the cells' runs or steps add up past the largest count", field)
		}
		cells[k] = i + 1
		runs += c.Runs
		steps += c.Steps
		crashes = min(crashes, math.MaxInt-c.Crashes) + c.Crashes
		images = min(images, math.MaxInt-c.DistinctCrashImages) + c.DistinctCrashImages
	}
	for i, f := range r.Failures {
		k := cellKey{f.Scenario, f.Backend}
		field := fmt.Sprintf("failures[%d] (%s/%s seed %d)", i, f.Scenario, f.Backend, f.Seed)
		off := f.Seed - r.BaseSeed // wraps below BaseSeed, so it is then out of range
		switch {
		case cells[k] == 0:
			return bad("%s: no cell %s/%s in cells", field, f.Scenario, f.Backend)
		case off >= uint64(r.Seeds) || off%uint64(n) != uint64(idx):
			return bad("%s.seed: not one of shard %s's seeds (baseSeed %d, seeds %d)", field, r.Shard, r.BaseSeed, r.Seeds)
		}
		failed[k]++
	}
	for k, i := range cells {
		c := r.Cells[i-1]
		if c.Failed != failed[k] {
			return bad("cells[%d] (%s/%s).failed: %d, but failures lists %d for the cell", i-1, k.scenario, k.backend, c.Failed, failed[k])
		}
		// a cell's verdict is its counts' (cellOf in Merge): an error
		// first, then fail exactly when a seed failed
		if c.Error == "" && c.Verdict != CellError && (c.Verdict == CellFail) != (c.Failed > 0) {
			return bad("cells[%d] (%s/%s).verdict: %q, but failed %d", i-1, k.scenario, k.backend, c.Verdict, c.Failed)
		}
	}
	if len(r.Failures) == 0 && r.Verdict == "fail" && !anyCellError(r.Cells) {
		// the merge judges the failures it is given: a shard that says it
		// failed and lists none would merge to a pass
		return bad("verdict: \"fail\", but no failure and no cell error")
	}
	for i, row := range r.Coverage {
		for j, o := range row.Orders {
			if o.Runs < 0 {
				return bad("coverage[%d] (%s).orders[%d] (%s).runs: %d is negative", i, row.Row, j, o.Order, o.Runs)
			}
			if o.Runs > runs {
				return bad("coverage[%d] (%s).orders[%d] (%s).runs: %d, more than the shard's %d runs", i, row.Row, j, o.Order, o.Runs, runs)
			}
		}
	}
	t := r.Throughput
	switch {
	case t.Runs != runs:
		return bad("throughput.runs: %d, but the cells ran %d", t.Runs, runs)
	case t.Steps != steps:
		return bad("throughput.steps: %d, but the cells took %d", t.Steps, steps)
	case t.Crashes != crashes || t.DistinctCrashImages != images:
		return bad("throughput: crashes %d, distinctCrashImages %d, but the cells have %d, %d", t.Crashes, t.DistinctCrashImages, crashes, images)
	case t.Jobs < 0 || !(t.WallSeconds >= 0):
		return bad("throughput: jobs %d, wallSeconds %v must not be negative", t.Jobs, t.WallSeconds)
	}
	return nil
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
