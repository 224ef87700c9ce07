package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/frameproof/frameproof/sim/campaign"
)

// sim runs the release-gate campaign: every selected scenario on every
// selected backend over a range of seeds, with race coverage, throughput,
// a verdict and one reproduction command per failure.

func init() {
	register("sim", "run a simulation campaign over scenarios x seeds x backends (release gate)", runSim)
}

const simUsage = "usage: frameproof sim [--subject impl|pi|lane (see sim --subject pi --help)] [--budget N|DURATION] [--seeds N] [--seed BASE] [--scenario NAME,...] [--backend NAME,...] [--shard i/n|auto] [--defer-coverage] [--bug NAME] [--json] [--junit FILE] [--tape-dir DIR] [--report-dir DIR] [--jobs N] [-q]"

// defaultSeeds is the number of seeds per scenario x backend of the default
// campaign, derived from measured throughput so that the default run (16
// lanesim scenarios x memory/jsonl/sqlite, 2 jobs) takes about a minute on
// two cores. Measured on the 2-core build machine: the default campaign at
// 120 seeds ran 5720 runs in 23.2 s wall (load ~2; sqlite cells are the
// slowest, 50-130 runs/s against 180-1000 for memory), i.e. 0.19 s per seed
// across the 48 cells: 60 s / 0.19 s = 310, rounded down to 300. (Under a
// load of ~5 from other builds the same seeds took twice as long.) At 120
// seeds the rarest race order (append-vs-finalization/append-first) was
// taken 15 times, so 300 seeds reach full race coverage with a wide margin.
const defaultSeeds = 300

// defaultBaseSeed makes the default gate the same campaign everywhere.
const defaultBaseSeed = 1

// simConfig is a parsed command line.
type simConfig struct {
	budgetSteps    int64
	budgetDuration time.Duration
	budgetText     string
	seeds          int
	baseSeed       uint64
	scenarios      []campaign.Scenario
	backends       []string
	bugs           []string
	shard, shards  int
	jobs           int
	maxFailures    int
	shrinkAttempts int
	asJSON         bool
	junit          string
	reportDir      string
	tapeDir        string // shrunk tapes of failures ("": none)
	tapeDirAsked   bool   // --tape-dir was given, so it is checked up front
	quiet          bool
	deferCoverage  bool
}

// simSignals subscribes to the signals that interrupt a campaign; tests
// replace it to interrupt a campaign without signalling the test process.
var simSignals = func() (<-chan os.Signal, func()) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	return ch, func() { signal.Stop(ch) }
}

// watchInterrupts turns the first SIGINT or SIGTERM into the cancellation
// of the returned context, which the campaign polls: runs in progress
// finish, no new run starts, the summary so far and the reports are written
// and the temporary directory removed. A second signal gets the default
// action (the process dies at once).
func watchInterrupts(stderr io.Writer) (context.Context, func()) {
	ctx, cancel := context.WithCancel(context.Background())
	sigs, unsubscribe := simSignals()
	done := make(chan struct{})
	go func() {
		select {
		case sig := <-sigs:
			cancel()
			unsubscribe()
			fmt.Fprintf(stderr, "\nframeproof sim: %v: finishing the runs in progress, then the summary and reports (again to quit at once)\n", sig)
		case <-done:
		}
	}()
	var once sync.Once
	return ctx, func() {
		once.Do(func() {
			close(done)
			unsubscribe()
			cancel()
		})
	}
}

// markInterrupted gives an interrupted run (a campaign, a conform run) its
// verdict: "interrupted", exit 1 when it found a failure before the
// interrupt, else the interrupted class's code (3, no verdict).
func markInterrupted(rep *Report) {
	rep.Verdict, rep.ExitCode = "interrupted", exitCode(classInterrupted)
	if rep.Failed > 0 {
		rep.ExitCode = exitFail
	}
	note := "interrupted: the counts, coverage and failures cover only the runs finished before the interrupt"
	if rep.Sim == nil {
		note = "interrupted: the counts and failures cover only the checks finished before the interrupt"
	}
	rep.Note = strings.TrimPrefix(rep.Note+"; "+note, "; ")
	if rep.Sim != nil {
		rep.Sim.Verdict = rep.Verdict
	}
}

func runSim(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	if name, rest, ok := subjectArg(args); ok {
		if name != subjectImpl {
			return runSubjectSim(name, rest, stdout, stderr)
		}
		args = rest // impl in process: the campaign below
	}
	suite := activeSuite
	cfg, code := parseSimFlags(suite, args, stdout, stderr)
	if code >= 0 {
		return code
	}
	tuneGCForSim()
	defer tuneProcsForSim(cfg.jobs)()
	if needsBugBuild(suite, cfg.bugs) {
		return runBugBuild(append([]string{"sim"}, args...), stdout, stderr)
	}
	if err := checkOutputFile("--junit", cfg.junit); err != nil {
		return ioError(stderr, "sim", "%v", err)
	}
	if err := checkOutputDir("--report-dir", cfg.reportDir); err != nil {
		return ioError(stderr, "sim", "%v", err)
	}
	if cfg.tapeDirAsked {
		if err := checkCreatableDir("--tape-dir", cfg.tapeDir); err != nil {
			return ioError(stderr, "sim", "%v", err)
		}
	}
	tmp, err := os.MkdirTemp("", "frameproof-sim-*")
	if err != nil {
		return ioError(stderr, "sim", "temporary directory: %v", unwrapPath(err))
	}
	defer os.RemoveAll(tmp)

	ctx, stopWatching := watchInterrupts(stderr)
	defer stopWatching()

	prog := newProgress(stderr, cfg.quiet)
	report, err := campaign.Run(ctx, cfg.options(suite, tmp, prog))
	prog.finish()
	if err != nil {
		return usageError(stderr, "sim", "%s", trimPrefix(err, "campaign: run"))
	}
	sr := &report
	// The failures' files first, so that every report names them.
	tapeErr := writeShrunkTapes(cfg, sr)
	if tapeErr != nil {
		fmt.Fprintln(stderr, "frameproof sim: --tape-dir:", tapeErr)
		if !cfg.tapeDirAsked {
			fmt.Fprintln(stderr, "frameproof sim: pick a writable directory with --tape-dir DIR, or --tape-dir '' for none")
		}
	}
	var reportErr error
	if cfg.reportDir != "" {
		if reportErr = writeFailureReports(suite, cfg, sr); reportErr != nil {
			fmt.Fprintln(stderr, "frameproof sim: --report-dir:", reportErr)
		}
	}
	rep := judgeSim(sr)
	if ctx.Err() != nil { // interrupted (stopWatching has not run yet)
		markInterrupted(rep)
	}
	code = outputCode(rep.ExitCode, errors.Join(tapeErr, reportErr))
	code = rep.writeJUnitKeeping(cfg.junit, "frameproof sim", code, stderr)
	if cfg.asJSON {
		_ = rep.writeJSON(stdout) // dispatch's checked stdout reports a failed write
		return code
	}
	printSimSummary(stdout, rep)
	return code
}

// parseSimFlags returns the config, or an exit code >= 0 to stop with.
func parseSimFlags(suite campaign.Suite, args []string, stdout, stderr io.Writer) (simConfig, int) {
	fs := flag.NewFlagSet("sim", flag.ContinueOnError)
	budget := fs.String("budget", "", "stop starting runs after N simulated steps in total, or after DURATION of wall time (e.g. 30s); split evenly over the scenario x backend cells")
	seeds := fs.Int("seeds", defaultSeeds, "seeds per scenario x backend")
	base := fs.Uint64("seed", defaultBaseSeed, "first seed (seeds are BASE..BASE+N-1)")
	scen := fs.String("scenario", "", "comma-separated scenarios (default: all)")
	backend := fs.String("backend", "", "comma-separated store backends (default: all)")
	shard := fs.String("shard", "0/1", "run only shard i of n (0-based) of every cell's seeds; auto: i from $"+campaign.EnvShardIndex+
		" (or Kubernetes' $"+campaign.EnvJobIndex+"), n from $"+campaign.EnvShardCount)
	deferCoverage := fs.Bool("defer-coverage", false, "count race coverage but leave its verdict to `frameproof merge` of all shards")
	bug := fs.String("bug", "", "inject the named bug(s), comma-separated (expected outcome: exit 1)")
	jobs := fs.Int("jobs", runtime.GOMAXPROCS(0), "cells run in parallel")
	maxFail := fs.Int("max-failures", 2, "stop a cell after this many failing seeds (0 = no limit)")
	shrinkAttempts := fs.Int("shrink-attempts", 500, "shrink budget (replays) per failing seed")
	asJSON := fs.Bool("json", false, "print the report as JSON instead of text")
	junit := fs.String("junit", "", "also write JUnit XML to this file (one testcase per scenario x backend)")
	reportDir := fs.String("report-dir", "", "write trace, HTML report and shrunk tape of every failure here")
	tapeDir := fs.String("tape-dir", defaultTapeDir, "write the shrunk tape of every failure here, created on the first failure; '' for none; with --report-dir and no --tape-dir, the report directory")
	quiet := fs.Bool("q", false, "no progress output")
	if code := parseFlags(fs, args, simUsage, func(w io.Writer) { simHelp(w, suite) }, stdout, stderr); code >= 0 {
		return simConfig{}, code
	}
	bad := func(format string, a ...any) (simConfig, int) {
		return simConfig{}, usageError(stderr, "sim", format, a...)
	}
	if fs.NArg() != 0 {
		return bad("unexpected argument %q", fs.Arg(0))
	}
	cfg := simConfig{seeds: *seeds, baseSeed: *base, jobs: *jobs, maxFailures: *maxFail,
		shrinkAttempts: *shrinkAttempts, asJSON: *asJSON, junit: *junit, reportDir: *reportDir, quiet: *quiet,
		deferCoverage: *deferCoverage, tapeDir: *tapeDir}
	fs.Visit(func(f *flag.Flag) { cfg.tapeDirAsked = cfg.tapeDirAsked || f.Name == "tape-dir" })
	if !cfg.tapeDirAsked && cfg.reportDir != "" {
		cfg.tapeDir = cfg.reportDir // one directory holds all of a failure's files
	}
	if cfg.seeds <= 0 {
		return bad("--seeds must be positive, got %d", cfg.seeds)
	}
	if cfg.jobs <= 0 {
		return bad("--jobs must be positive, got %d", cfg.jobs)
	}
	if cfg.maxFailures < 0 || cfg.shrinkAttempts < 0 {
		return bad("--max-failures and --shrink-attempts must not be negative")
	}
	if *budget != "" {
		var err error
		if cfg.budgetSteps, cfg.budgetDuration, err = parseBudget(*budget); err != nil {
			return bad("%v", err)
		}
		cfg.budgetText = *budget
	}
	var err error
	if *shard == "auto" {
		if cfg.shard, cfg.shards, err = campaign.ShardFromEnv(os.Getenv); err != nil {
			return bad("--shard auto: %s", trimPrefix(err, "campaign: shard auto"))
		}
	} else if cfg.shard, cfg.shards, err = campaign.ParseShard(*shard); err != nil {
		return bad("--shard: %s", trimPrefix(err, "campaign"))
	}
	if len(suite.Scenarios()) == 0 {
		return bad("no scenarios are available in this build")
	}
	if cfg.scenarios, err = lookupScenarios(suite, *scen); err != nil {
		return bad("--scenario: %v", err)
	}
	if cfg.backends, err = lookupNames("backend", *backend, suite.Backends(), suite.Backends()); err != nil {
		return bad("--backend: %v", err)
	}
	if cfg.bugs, err = lookupNames("bug", *bug, suite.BugNames(), nil); err != nil {
		return bad("--bug: %v", err)
	}
	return cfg, -1
}

// parseBudget reads "N" (simulated steps) or a Go duration ("90s", "2m").
func parseBudget(s string) (int64, time.Duration, error) {
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		if n <= 0 {
			return 0, 0, fmt.Errorf("--budget must be positive, got %d", n)
		}
		return n, 0, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, 0, fmt.Errorf("--budget %q: want a step count (e.g. 500000) or a duration (e.g. 90s)", s)
	}
	if d <= 0 {
		return 0, 0, fmt.Errorf("--budget must be positive, got %s", s)
	}
	return 0, d, nil
}

// simHelp is what --help prints after the flags.
func simHelp(w io.Writer, suite campaign.Suite) {
	fmt.Fprintln(w, "Runs every scenario on every backend over seeds BASE..BASE+N-1 and checks invariants,")
	fmt.Fprintln(w, "impl vs model and linearizability. --budget ends the campaign: no seed starts after it.")
	fmt.Fprintln(w, "")
	fmt.Fprintln(w, "scenarios:")
	for _, sc := range suite.Scenarios() {
		fmt.Fprintf(w, "  %-26s %s\n", sc.Name, sc.Description)
	}
	fmt.Fprintln(w, "")
	fmt.Fprintf(w, "backends: %s\n", strings.Join(suite.Backends(), ", "))
	fmt.Fprintln(w, "")
	fmt.Fprintln(w, "injected bugs (--bug NAME):")
	for _, b := range suite.BugNames() {
		fmt.Fprintf(w, "  %s\n", b)
	}
}

// options is the campaign the command line asks for.
func (cfg simConfig) options(suite campaign.Suite, tmp string, prog *progress) campaign.Options {
	return campaign.Options{Suite: suite, Scenarios: cfg.scenarios, Backends: cfg.backends, Bugs: cfg.bugs,
		BaseSeed: cfg.baseSeed, Seeds: cfg.seeds, Shard: cfg.shard, Shards: cfg.shards, Jobs: cfg.jobs,
		MaxFailures: cfg.maxFailures, ShrinkAttempts: cfg.shrinkAttempts,
		BudgetSteps: cfg.budgetSteps, BudgetDuration: cfg.budgetDuration, Budget: cfg.budgetText,
		DeferCoverage: cfg.deferCoverage, TempDir: tmp, Progress: prog}
}
