package campaign

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/frameproof/frameproof/sim/choice"
)

// Options describe a campaign over scenarios x backends: every selected
// scenario on every selected backend over seeds BaseSeed..BaseSeed+Seeds-1
// (the shard's share of them), cells run on Jobs workers.
type Options struct {
	Suite     Suite      // the race table the coverage is judged against
	Scenarios []Scenario // the scenarios to run (from Suite.Scenarios())
	Backends  []string
	Bugs      []string

	BaseSeed      uint64
	Seeds         int // per scenario x backend, before sharding
	Shard, Shards int // shard i of n (Shards 0 means 1)
	Jobs          int // cells run in parallel (0 means 1)

	MaxFailures    int // stop a cell after this many failing seeds (0: no limit)
	ShrinkAttempts int // shrink budget per failing seed (0: no shrinking)
	// BudgetSteps and BudgetDuration (0: none) are split evenly over the
	// cells; Budget is how the user spelled them, for the report.
	BudgetSteps    int64
	BudgetDuration time.Duration
	Budget         string
	// DeferCoverage marks the report as leaving the race-coverage verdict
	// to the merge of all shards.
	DeferCoverage bool
	// TempDir holds one working directory per cell, removed when it ends.
	TempDir string
	// Progress, when set, hears about every run and cell.
	Progress Progress
	// Now is the clock the duration budget and the throughput read (nil:
	// time.Now); tests pass a fake one.
	Now func() time.Time
}

// Progress is told about a campaign as it runs; calls come from the worker
// goroutines, so an implementation synchronises itself.
type Progress interface {
	Start(plannedRuns int) // before the first run
	Run(failed bool)       // after every seed's first run
	CellDone(c Cell)       // after every cell
}

// Run executes the campaign and returns its report, without a verdict (the
// caller judges it). Cancelling ctx stops it like a budget: runs in progress
// finish, no new seed or cell starts, the report covers what ran. Every run
// is deterministic in its seed alone, so Jobs changes wall time, never
// results. The error is for options that describe no campaign.
func Run(ctx context.Context, opts Options) (Report, error) {
	if err := opts.check(); err != nil {
		return Report{}, err
	}
	res := execute(ctx, opts)
	return buildReport(opts, res), nil
}

func (o *Options) check() error {
	if o.Shards == 0 {
		o.Shards = 1
	}
	if o.Jobs == 0 {
		o.Jobs = 1
	}
	switch {
	case o.Suite == nil:
		return fmt.Errorf("campaign: run: no suite")
	case len(o.Scenarios) == 0 || len(o.Backends) == 0:
		return fmt.Errorf("campaign: run: no scenario or no backend")
	case o.Seeds <= 0:
		return fmt.Errorf("campaign: run: seeds must be positive, got %d", o.Seeds)
	case o.Shard < 0 || o.Shard >= o.Shards:
		return fmt.Errorf("campaign: run: shard %d/%d out of range", o.Shard, o.Shards)
	case o.Jobs < 0 || o.MaxFailures < 0 || o.ShrinkAttempts < 0:
		return fmt.Errorf("campaign: run: negative jobs, max failures or shrink attempts")
	}
	return nil
}

// cellResult is one scenario x backend campaign.
type cellResult struct {
	scenario, backend string
	summary           Summary
	err               error
	orders            map[string]map[string]int // row -> order -> runs
	// runTime is the time spent in the seeds' first runs only (not in
	// re-runs and shrinking): the simulator's own throughput.
	runTime time.Duration
}

type runResult struct {
	cells    []cellResult
	duration time.Duration
}

// execute runs the cells on opts.Jobs workers.
func execute(ctx context.Context, opts Options) runResult {
	var cells []cellResult
	for _, sc := range opts.Scenarios {
		for _, b := range opts.Backends {
			cells = append(cells, cellResult{scenario: sc.Name, backend: b})
		}
	}
	byName := map[string]Scenario{}
	for _, sc := range opts.Scenarios {
		byName[sc.Name] = sc
	}
	planned := PlannedSeeds(opts.Seeds, opts.Shard, opts.Shards)
	if opts.Progress != nil {
		opts.Progress.Start(planned * len(cells))
	}

	// Budgets are split evenly over the cells; a duration budget is wall
	// time, and jobs cells run at once.
	var maxSteps int64
	var maxDur time.Duration
	if opts.BudgetSteps > 0 {
		maxSteps = max(1, opts.BudgetSteps/int64(len(cells)))
	}
	if opts.BudgetDuration > 0 {
		maxDur = max(time.Nanosecond, opts.BudgetDuration*time.Duration(min(opts.Jobs, len(cells)))/time.Duration(len(cells)))
	}

	now := opts.Now
	if now == nil {
		now = time.Now
	}
	start := now()
	work := make(chan int)
	var wg sync.WaitGroup
	for range min(opts.Jobs, len(cells)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				c := &cells[i]
				dir := filepath.Join(opts.TempDir, c.scenario+"-"+c.backend)
				*c = runCell(ctx, byName[c.scenario], c.backend, dir, opts, maxSteps, maxDur)
				if opts.Progress != nil {
					opts.Progress.CellDone(reportCell(*c))
				}
			}
		}()
	}
	dispatched := 0
dispatch:
	for dispatched < len(cells) {
		select {
		case <-ctx.Done():
			break dispatch
		case work <- dispatched:
			dispatched++
		}
	}
	close(work)
	wg.Wait()
	// Interrupted: the cells never started stay "not run", 0 of their
	// planned seeds run.
	for i := dispatched; i < len(cells); i++ {
		cells[i].summary = Summary{Scenario: cells[i].scenario, BaseSeed: opts.BaseSeed, Planned: planned,
			Shard: fmt.Sprintf("%d/%d", opts.Shard, opts.Shards), Failures: []Failure{}, StoppedBy: "interrupted"}
	}
	return runResult{cells: cells, duration: now().Sub(start)}
}

// runCell runs one scenario on one backend as a Campaign.
func runCell(ctx context.Context, sc Scenario, backend, dir string, opts Options, maxSteps int64, maxDur time.Duration) cellResult {
	orders := map[string]map[string]int{}
	var last Outcome // the latest seeded run (shrink replays do not overwrite it)
	var lastDur, runTime time.Duration
	ro := RunOptions{Backend: backend, Bugs: opts.Bugs, TempDir: dir}
	fresh := !usesNoDir(opts.Suite)
	run := func(src choice.Source) Result {
		// Every run, re-runs and shrink replays included, starts from the
		// same empty directory, so file paths never differ between runs.
		if fresh {
			if err := FreshDir(dir); err != nil {
				return Result{Failed: true, Kind: KindHarness, Message: err.Error()}
			}
		}
		var out Outcome
		if _, replay := src.(*choice.Replay); replay {
			o := ro
			o.MaxSteps = ShrinkStepCap(last)
			out = sc.Run(src, o)
		} else {
			began := time.Now()
			out = sc.Run(src, ro)
			last, lastDur = out, time.Since(began)
		}
		return Result{Failed: out.Failed, Kind: out.Kind, Message: out.Message,
			TraceHash: out.TraceHash, Steps: int64(out.Steps), CrashImages: out.CrashImages}
	}
	c := Campaign{
		Scenario: sc.Name, Backend: backend, Bug: strings.Join(opts.Bugs, ","), Run: run,
		BaseSeed: opts.BaseSeed, Seeds: opts.Seeds, Shard: opts.Shard, Shards: opts.Shards,
		MaxSteps: maxSteps, MaxDuration: maxDur, MaxFailures: opts.MaxFailures,
		Stop:           func() bool { return ctx.Err() != nil },
		Now:            opts.Now,
		ShrinkAttempts: opts.ShrinkAttempts, NoShrink: opts.ShrinkAttempts == 0,
		// OnRun follows the seed's first run directly (before any re-run
		// or shrink replay), so last is that run's outcome.
		OnRun: func(seed uint64, r Result) {
			for row, taken := range last.TakenOrders() {
				if orders[row] == nil {
					orders[row] = map[string]int{}
				}
				for _, order := range taken {
					orders[row][order]++
				}
			}
			runTime += lastDur
			if opts.Progress != nil {
				opts.Progress.Run(r.Failed)
			}
		},
	}
	sum, err := c.Execute()
	_ = os.RemoveAll(dir)
	return cellResult{scenario: sc.Name, backend: backend, summary: sum, err: err, orders: orders, runTime: runTime}
}

// NoDirSuite is a Suite whose runs never touch RunOptions.TempDir
// (sim/lanesim: every backend simulates in memory or on faults.FS). A
// campaign gives their runs no directory: emptying and creating one before
// every run, in system calls, was 6% of a default campaign's CPU.
type NoDirSuite interface {
	Suite
	// RunsUseNoDir reports that no run reads or writes TempDir.
	RunsUseNoDir() bool
}

func usesNoDir(s Suite) bool {
	n, ok := s.(NoDirSuite)
	return ok && n.RunsUseNoDir()
}

// FreshDir empties dir (creating it), so that a run starts from nothing.
func FreshDir(dir string) error {
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("sim: reset %s: %w", dir, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("sim: create %s: %w", dir, err)
	}
	return nil
}
