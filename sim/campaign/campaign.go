// Package campaign runs a scenario over many seeds: the VOPR/FoundationDB
// loop with rapid-style shrinking on top.
//
// For each seed of its shard a Campaign runs the scenario on a fresh
// choice.NewSeeded(seed). A failing seed is then
//
//  1. re-run twice on the same seed; the three trace hashes must agree, else
//     the failure is reported as KindNondeterminism (the simulator, not the
//     code under test, is broken — like FoundationDB's UnseedMismatch);
//  2. shrunk: its tape is delta-debugged (sim/shrink) with candidates
//     replayed through choice.NewReplay, keeping only candidates that fail
//     with the same Kind; if the shrunk tape then replays to anything else,
//     the failure is reported as KindNondeterminism too;
//  3. reported with the one command that reproduces it (Repro).
//
// A scenario is any func(choice.Source) Result; it builds its own world,
// runs it, checks what it wants and returns the verdict and trace hash.
// Summary is JSON-serialisable for the CLI and CI.
//
// Run is the release-gate campaign over a Suite (sim/lanesim is the one the
// CLI runs): one Campaign per scenario x backend cell, cells on parallel
// workers, shards, budgets, interrupts, race coverage and the Report that
// `frameproof sim --json` prints and Merge unions.
package campaign

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/frameproof/frameproof/sim/choice"
	"github.com/frameproof/frameproof/sim/shrink"
)

// Result is a scenario's verdict for one run.
type Result struct {
	Failed bool `json:"failed"`
	// Kind classifies a failure (kinds.go). Shrinking keeps the kind
	// fixed.
	Kind      FailureKind `json:"kind,omitempty"`
	Message   string      `json:"message,omitempty"`
	TraceHash string      `json:"traceHash"`
	Steps     int64       `json:"steps"`
	// CrashImages identifies the disk state after each simulated power
	// loss (a hash of file names and contents); Execute counts the
	// distinct ones.
	CrashImages []uint64 `json:"-"`
}

// RunFunc runs a scenario once, drawing every decision from src.
type RunFunc func(src choice.Source) Result

// Campaign describes a batch of seeded runs. Zero budgets mean "no limit";
// Seeds must be positive.
type Campaign struct {
	Scenario string  // scenario name, for the repro command
	Backend  string  // store backend, for the repro command
	Bug      string  // injected bug names, comma-separated, for the repro command ("" = none)
	Run      RunFunc // the scenario itself

	BaseSeed uint64 // seeds are BaseSeed+i for i in [0, Seeds)
	Seeds    int
	// Shard/Shards split the seeds across machines: shard i (0-based) of n
	// runs the indexes with i%n == Shard. Shards 0 means 1.
	Shard, Shards int

	MaxSteps    int64         // stop starting runs once this many steps ran in total
	MaxDuration time.Duration // stop starting runs after this much wall time
	MaxFailures int           // stop after this many failing seeds

	ShrinkAttempts int // predicate budget per failing seed (default shrink.DefaultMaxAttempts)
	NoShrink       bool

	// OnRun, when set, is called after every seed (progress output).
	OnRun func(seed uint64, r Result)

	// Stop, when set, is polled before every run; once it reports true
	// the campaign starts no more seeds (StoppedBy "interrupted") and a
	// failure being shrunk keeps the smallest tape found so far.
	Stop func() bool

	// Now is the clock MaxDuration and the throughput figures read (nil:
	// time.Now); tests pass a fake one.
	Now func() time.Time
}

// now reads the campaign's clock.
func (c Campaign) now() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}

// PlannedSeeds is how many of seeds (indexes 0..seeds-1) shard i of n
// owns: the indexes with index%n == i. It is computed, not counted, so a
// campaign of 2^63-1 seeds costs nothing before its first run.
func PlannedSeeds(seeds, shard, shards int) int {
	if shards < 1 {
		shards = 1
	}
	if shard < 0 || seeds <= shard {
		return 0
	}
	n := seeds - shard // >= 1, no overflow: 0 <= shard < seeds
	planned := n / shards
	if n%shards != 0 {
		planned++
	}
	return planned
}

// stopped reports whether the campaign was asked to stop.
func (c Campaign) stopped() bool { return c.Stop != nil && c.Stop() }

// Failure is one failing seed.
type Failure struct {
	Seed      uint64      `json:"seed"`
	Kind      FailureKind `json:"kind"`
	Message   string      `json:"message"`
	TraceHash string      `json:"traceHash"`
	Steps     int64       `json:"steps"`
	// RerunHashes are the hashes of the two determinism re-runs.
	RerunHashes []string `json:"rerunHashes"`
	TapeLen     int      `json:"tapeLen"`
	// ShrunkTape is the minimised tape; ShrunkMessage what it fails with.
	ShrunkTape    choice.Tape  `json:"shrunkTape,omitempty"`
	ShrunkTapeLen int          `json:"shrunkTapeLen"`
	ShrunkMessage string       `json:"shrunkMessage,omitempty"`
	Shrink        shrink.Stats `json:"shrink"`
	Repro         string       `json:"repro"`
}

// Summary is the outcome of Execute.
type Summary struct {
	Scenario string `json:"scenario,omitempty"`
	Bug      string `json:"bug,omitempty"`
	Shard    string `json:"shard"`
	BaseSeed uint64 `json:"baseSeed"`
	// Planned is how many seeds this shard owns; Runs how many it ran.
	Planned  int       `json:"planned"`
	Runs     int       `json:"runs"`
	Passed   int       `json:"passed"`
	Steps    int64     `json:"steps"`
	Failures []Failure `json:"failures"`
	// StoppedBy names the budget that ended the campaign early ("" if all
	// planned seeds ran): "steps", "duration", "failures" or "interrupted"
	// (Campaign.Stop).
	StoppedBy       string  `json:"stoppedBy,omitempty"`
	DurationSeconds float64 `json:"durationSeconds"`
	RunsPerSecond   float64 `json:"runsPerSecond"`
	StepsPerSecond  float64 `json:"stepsPerSecond"`
	// Crashes counts the simulated power losses of the seeds' first runs;
	// DistinctCrashImages the distinct disk states they left.
	Crashes             int `json:"crashes"`
	DistinctCrashImages int `json:"distinctCrashImages"`
}

// OK reports whether no seed failed.
func (s Summary) OK() bool { return len(s.Failures) == 0 }

// ParseShard parses "i/n" (0 <= i < n).
func ParseShard(s string) (shard, shards int, err error) {
	a, b, ok := strings.Cut(s, "/")
	if ok {
		shard, err = strconv.Atoi(a)
		if err == nil {
			shards, err = strconv.Atoi(b)
		}
	}
	if !ok || err != nil || shards < 1 || shard < 0 || shard >= shards {
		return 0, 0, fmt.Errorf("campaign: parse shard %q: want i/n with 0 <= i < n", s)
	}
	return shard, shards, nil
}

// Execute runs the campaign and returns its summary.
func (c Campaign) Execute() (Summary, error) {
	shards := c.Shards
	if shards == 0 {
		shards = 1
	}
	if c.Run == nil {
		return Summary{}, fmt.Errorf("campaign: execute: no scenario function")
	}
	if c.Seeds <= 0 {
		return Summary{}, fmt.Errorf("campaign: execute: seeds must be positive, got %d", c.Seeds)
	}
	if shards < 1 || c.Shard < 0 || c.Shard >= shards {
		return Summary{}, fmt.Errorf("campaign: execute: shard %d/%d out of range", c.Shard, shards)
	}
	sum := Summary{
		Scenario: c.Scenario, Bug: c.Bug, BaseSeed: c.BaseSeed,
		Shard: fmt.Sprintf("%d/%d", c.Shard, shards), Failures: []Failure{},
	}
	sum.Planned = PlannedSeeds(c.Seeds, c.Shard, shards)
	images := map[uint64]bool{}
	start := c.now() // wall time only for throughput and MaxDuration
	// Every stop is checked before the next seed and ends the loop at once:
	// after a budget or a stop nothing walks the rest of the seed range.
	// The k-th seed of the shard has index Shard+k*shards < Seeds, so the
	// index never overflows.
	for k := 0; k < sum.Planned; k++ {
		switch {
		case c.MaxSteps > 0 && sum.Steps >= c.MaxSteps:
			sum.StoppedBy = "steps"
		case c.MaxDuration > 0 && c.now().Sub(start) >= c.MaxDuration:
			sum.StoppedBy = "duration"
		case c.MaxFailures > 0 && len(sum.Failures) >= c.MaxFailures:
			sum.StoppedBy = "failures"
		case c.stopped():
			sum.StoppedBy = "interrupted"
		}
		if sum.StoppedBy != "" {
			break
		}
		i := c.Shard + k*shards
		seed := c.BaseSeed + uint64(i)
		src := choice.NewSeeded(seed)
		r := c.Run(src)
		sum.Runs++
		sum.Steps += r.Steps
		sum.Crashes += len(r.CrashImages)
		for _, img := range r.CrashImages {
			images[img] = true
		}
		if c.OnRun != nil {
			c.OnRun(seed, r)
		}
		if !r.Failed {
			sum.Passed++
			continue
		}
		sum.Failures = append(sum.Failures, c.investigate(seed, r, src.Tape()))
	}
	sum.DistinctCrashImages = len(images)
	elapsed := c.now().Sub(start).Seconds()
	sum.DurationSeconds = elapsed
	if elapsed > 0 {
		sum.RunsPerSecond = float64(sum.Runs) / elapsed
		sum.StepsPerSecond = float64(sum.Steps) / elapsed
	}
	return sum, nil
}

// investigate re-checks determinism and shrinks one failing seed.
func (c Campaign) investigate(seed uint64, r Result, tape choice.Tape) Failure {
	f := Failure{
		Seed: seed, Kind: r.Kind, Message: r.Message, TraceHash: r.TraceHash, Steps: r.Steps,
		TapeLen: len(tape), Repro: Repro(seed, c.Scenario, c.Backend, c.Bug),
	}
	for range 2 {
		again := c.Run(choice.NewSeeded(seed))
		f.RerunHashes = append(f.RerunHashes, again.TraceHash)
	}
	if f.RerunHashes[0] != r.TraceHash || f.RerunHashes[1] != r.TraceHash {
		f.Kind = KindNondeterminism
		f.Message = fmt.Sprintf("seed %d is not deterministic: trace hashes %s, %s, %s (original failure %s: %s)",
			seed, r.TraceHash, f.RerunHashes[0], f.RerunHashes[1], r.Kind, r.Message)
		return f
	}
	f.ShrunkTape, f.ShrunkTapeLen, f.ShrunkMessage = tape, len(tape), r.Message
	if c.NoShrink {
		return f
	}
	fails := func(t choice.Tape) bool {
		if c.stopped() {
			return false // keep what was found; the replay below checks it
		}
		got := c.Run(choice.NewReplay(t))
		return got.Failed && got.Kind == r.Kind
	}
	shrunk, stats := shrink.Shrink(tape, fails, shrink.Options{MaxAttempts: c.ShrinkAttempts})
	f.ShrunkTape, f.ShrunkTapeLen, f.Shrink = shrunk, len(shrunk), stats
	finalSrc := choice.NewReplay(shrunk)
	final := c.Run(finalSrc)
	// the shrunk tape was cut from the seed's: give each choice the label
	// of the draw its value feeds, so the tape reads as the failing run
	f.ShrunkTape = finalSrc.Relabelled()
	f.ShrunkMessage = final.Message
	if !final.Failed || final.Kind != r.Kind {
		// The shrinker keeps only tapes that failed with r.Kind (and the
		// unshrunk tape is the seed's own decisions), so a replay that now
		// passes or fails differently means replays are not deterministic.
		f.Kind = KindNondeterminism
		f.Message = fmt.Sprintf("seed %d: its shrunk tape (%d choices) replayed to %s, not the original failure %s: %s",
			seed, len(shrunk), describe(final), r.Kind, r.Message)
	}
	return f
}

func describe(r Result) string {
	if !r.Failed {
		return "a pass"
	}
	return fmt.Sprintf("failure %s: %s", r.Kind, r.Message)
}
