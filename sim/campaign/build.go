package campaign

import "fmt"

// Cell verdicts of a Report.
const (
	CellPass   = "pass"
	CellFail   = "fail"
	CellError  = "error"
	CellNotRun = "not run"
)

// buildReport turns the cells into the campaign report (no verdict yet).
func buildReport(opts Options, res runResult) Report {
	r := Report{BaseSeed: opts.BaseSeed, Seeds: opts.Seeds, Shard: fmt.Sprintf("%d/%d", opts.Shard, opts.Shards),
		Budget: opts.Budget, Bugs: opts.Bugs, Backends: opts.Backends, CoverageDeferred: opts.DeferCoverage,
		Cells: []Cell{}, Coverage: []CoverageRow{}, Failures: []ReportedFailure{}}
	for _, sc := range opts.Scenarios {
		r.Scenarios = append(r.Scenarios, sc.Name)
	}
	orders := map[string]map[string]int{}
	for _, c := range res.cells {
		s := c.summary
		for _, f := range s.Failures {
			r.Failures = append(r.Failures, reportFailure(c, opts.Bugs, f))
		}
		r.Cells = append(r.Cells, reportCell(c))
		r.Throughput.Runs += s.Runs
		r.Throughput.Steps += s.Steps
		r.Throughput.Crashes += s.Crashes
		r.Throughput.DistinctCrashImages += s.DistinctCrashImages
		for row, m := range c.orders {
			if orders[row] == nil {
				orders[row] = map[string]int{}
			}
			for o, n := range m {
				orders[row][o] += n
			}
		}
	}
	wall := res.duration.Seconds()
	r.Throughput.WallSeconds = wall
	r.Throughput.Jobs = min(opts.Jobs, len(res.cells))
	if wall > 0 {
		r.Throughput.RunsPerSecond = float64(r.Throughput.Runs) / wall
		r.Throughput.StepsPerSecond = float64(r.Throughput.Steps) / wall
	}
	for _, row := range CoverageGoals(opts.Suite.RaceRows(), opts.Scenarios) {
		cov := CoverageRow{Row: row.ID, Name: row.Name, Covered: true}
		for _, o := range row.Orders {
			n := orders[row.ID][o]
			cov.Orders = append(cov.Orders, OrderCount{Order: o, Runs: n})
			cov.Covered = cov.Covered && n > 0
		}
		r.Coverage = append(r.Coverage, cov)
	}
	r.Reach = reachCounts(reachItems(opts.Suite), orders)
	return r
}

// reportCell is a cell's line of the report.
func reportCell(c cellResult) Cell {
	s := c.summary
	cell := Cell{Scenario: c.scenario, Backend: c.backend, Planned: s.Planned, Runs: s.Runs, Passed: s.Passed,
		Failed: len(s.Failures), Steps: s.Steps, StoppedBy: s.StoppedBy, DurationSeconds: s.DurationSeconds,
		RunSeconds: c.runTime.Seconds(), Crashes: s.Crashes, DistinctCrashImages: s.DistinctCrashImages}
	if cell.RunSeconds > 0 {
		cell.RunsPerSecond = float64(s.Runs) / cell.RunSeconds
		cell.StepsPerSecond = float64(s.Steps) / cell.RunSeconds
	}
	switch {
	case c.err != nil:
		cell.Verdict, cell.Error = CellError, c.err.Error()
	case len(s.Failures) > 0:
		cell.Verdict = CellFail
	case s.Runs == 0:
		cell.Verdict = CellNotRun
	default:
		cell.Verdict = CellPass
	}
	return cell
}

func reportFailure(c cellResult, bugs []string, f Failure) ReportedFailure {
	return ReportedFailure{Scenario: c.scenario, Backend: c.backend, Bugs: bugs, Seed: f.Seed, Kind: f.Kind,
		Message: f.Message, Repro: f.Repro,
		TraceHash: f.TraceHash, RerunHashes: f.RerunHashes, TapeLen: f.TapeLen,
		ShrunkTapeLen: f.ShrunkTapeLen, ShrunkMessage: f.ShrunkMessage, ShrunkTape: f.ShrunkTape}
}
