package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/frameproof/frameproof/sim/choice"
)

// SimReport is the sim-specific part of the --json Report (Report.Sim).
type SimReport struct {
	BaseSeed  uint64   `json:"baseSeed"`
	Seeds     int      `json:"seeds"` // per scenario x backend, before sharding
	Shard     string   `json:"shard"` // "i/n"
	Budget    string   `json:"budget,omitempty"`
	Bugs      []string `json:"bugs,omitempty"`
	Scenarios []string `json:"scenarios"`
	Backends  []string `json:"backends"`
	// Verdict repeats Report.Verdict: "pass", "fail" or "inconclusive".
	Verdict    string        `json:"verdict"`
	Cells      []SimCell     `json:"cells"`
	Coverage   []SimCoverage `json:"coverage"`
	Throughput SimThroughput `json:"throughput"`
	Failures   []SimFailure  `json:"failures"`
}

// SimCell is one scenario x backend campaign.
type SimCell struct {
	Scenario string `json:"scenario"`
	Backend  string `json:"backend"`
	Planned  int    `json:"planned"` // seeds this shard owns
	Runs     int    `json:"runs"`
	Passed   int    `json:"passed"`
	Failed   int    `json:"failed"`
	Steps    int64  `json:"steps"`
	// StoppedBy names the budget that ended the cell early: "steps",
	// "duration" or "failures"; "" if every planned seed ran.
	StoppedBy string `json:"stoppedBy,omitempty"`
	// DurationSeconds is the cell's wall time, re-runs and shrinking of
	// failures included; RunSeconds only the seeds' first runs, from which
	// RunsPerSecond and StepsPerSecond (the simulator's speed) are taken.
	DurationSeconds float64 `json:"durationSeconds"`
	RunSeconds      float64 `json:"runSeconds"`
	RunsPerSecond   float64 `json:"runsPerSecond"`
	StepsPerSecond  float64 `json:"stepsPerSecond"`
	// Crashes and DistinctCrashImages: campaign.Summary's crash counts.
	Crashes             int    `json:"crashes"`
	DistinctCrashImages int    `json:"distinctCrashImages"`
	Verdict             string `json:"verdict"` // pass | fail | error | not run
	Error               string `json:"error,omitempty"`
}

// SimCoverage is one race row: how many runs took each of its orders.
type SimCoverage struct {
	Row     string     `json:"row"`
	Name    string     `json:"name"`
	Orders  []SimOrder `json:"orders"`
	Covered bool       `json:"covered"` // both orders taken at least once
}

// SimOrder counts the runs that took one order of a race row.
type SimOrder struct {
	Order string `json:"order"`
	Runs  int    `json:"runs"`
}

// SimThroughput is the whole campaign's speed (wall time, all jobs).
type SimThroughput struct {
	Runs           int     `json:"runs"`
	Steps          int64   `json:"steps"`
	WallSeconds    float64 `json:"wallSeconds"`
	Jobs           int     `json:"jobs"`
	RunsPerSecond  float64 `json:"runsPerSecond"`
	StepsPerSecond float64 `json:"stepsPerSecond"`
	// Crashes and DistinctCrashImages sum the cells' counts (a disk image is
	// counted once per cell).
	Crashes             int `json:"crashes"`
	DistinctCrashImages int `json:"distinctCrashImages"`
}

// SimFailure is one failing seed with its reproduction.
type SimFailure struct {
	Scenario    string   `json:"scenario"`
	Backend     string   `json:"backend"`
	Bugs        []string `json:"bugs,omitempty"`
	Seed        uint64   `json:"seed"`
	Kind        string   `json:"kind"`
	Message     string   `json:"message"`
	Repro       string   `json:"repro"` // the one-line reproduction command
	TraceHash   string   `json:"traceHash"`
	RerunHashes []string `json:"rerunHashes"`
	TapeLen     int      `json:"tapeLen"`
	// ShrunkTapeLen is the length of the delta-debugged tape that still
	// fails with Kind; ShrunkMessage what it fails with.
	ShrunkTapeLen int         `json:"shrunkTapeLen"`
	ShrunkMessage string      `json:"shrunkMessage,omitempty"`
	ShrunkTape    choice.Tape `json:"shrunkTape,omitempty"`
	// Files lists what --report-dir wrote for this failure.
	Files []string `json:"files,omitempty"`
}

// buildSimReport turns the cells into the Report (one testcase per
// scenario x backend) and its Sim part.
func buildSimReport(suite simSuite, cfg simConfig, res simResult) *Report {
	rep := &Report{Schema: ReportSchema, Command: "sim", Suites: []ReportSuite{}}
	sr := &SimReport{BaseSeed: cfg.baseSeed, Seeds: cfg.seeds, Shard: fmt.Sprintf("%d/%d", cfg.shard, cfg.shards),
		Budget: cfg.budgetText, Bugs: cfg.bugs, Backends: cfg.backends,
		Cells: []SimCell{}, Coverage: []SimCoverage{}, Failures: []SimFailure{}}
	rep.Sim = sr
	for _, sc := range cfg.scenarios {
		sr.Scenarios = append(sr.Scenarios, sc.Name)
	}
	orders := map[string]map[string]int{}
	for _, c := range res.cells {
		s := c.summary
		cell := SimCell{Scenario: c.scenario, Backend: c.backend, Planned: s.Planned, Runs: s.Runs, Passed: s.Passed,
			Failed: len(s.Failures), Steps: s.Steps, StoppedBy: s.StoppedBy, DurationSeconds: s.DurationSeconds,
			RunSeconds: c.runTime.Seconds(), Crashes: s.Crashes, DistinctCrashImages: s.DistinctCrashImages}
		if cell.RunSeconds > 0 {
			cell.RunsPerSecond = float64(s.Runs) / cell.RunSeconds
			cell.StepsPerSecond = float64(s.Steps) / cell.RunSeconds
		}
		rc := ReportCase{Name: c.backend}
		switch {
		case c.err != nil:
			cell.Verdict, cell.Error = statusError, c.err.Error()
			rc.Status, rc.Detail = statusError, c.err.Error()
		case len(s.Failures) > 0:
			cell.Verdict, rc.Status = statusFail, statusFail
		case s.Runs == 0:
			cell.Verdict, rc.Status = "not run", statusSkipped
			rc.Detail = "budget exhausted before the first run"
		default:
			cell.Verdict, rc.Status = statusPass, statusPass
			rc.Detail = fmt.Sprintf("%d runs, %d steps", s.Runs, s.Steps)
		}
		var details []string
		for _, f := range s.Failures {
			sf := SimFailure{Scenario: c.scenario, Backend: c.backend, Bugs: cfg.bugs, Seed: f.Seed, Kind: f.Kind,
				Message: f.Message, Repro: reproCommand(f.Seed, c.scenario, c.backend, cfg.bugs),
				TraceHash: f.TraceHash, RerunHashes: f.RerunHashes, TapeLen: f.TapeLen,
				ShrunkTapeLen: f.ShrunkTapeLen, ShrunkMessage: f.ShrunkMessage, ShrunkTape: f.ShrunkTape}
			sr.Failures = append(sr.Failures, sf)
			details = append(details, fmt.Sprintf("seed %d %s: %s\nrepro: %s\nshrunk tape: %d -> %d choices",
				f.Seed, f.Kind, f.Message, sf.Repro, f.TapeLen, f.ShrunkTapeLen))
		}
		if len(details) > 0 {
			rc.Detail = strings.Join(details, "\n")
		}
		rep.add(c.scenario, rc)
		sr.Cells = append(sr.Cells, cell)
		sr.Throughput.Runs += s.Runs
		sr.Throughput.Steps += s.Steps
		sr.Throughput.Crashes += s.Crashes
		sr.Throughput.DistinctCrashImages += s.DistinctCrashImages
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
	sr.Throughput.WallSeconds = wall
	sr.Throughput.Jobs = min(cfg.jobs, len(res.cells))
	if wall > 0 {
		sr.Throughput.RunsPerSecond = float64(sr.Throughput.Runs) / wall
		sr.Throughput.StepsPerSecond = float64(sr.Throughput.Steps) / wall
	}
	var missing []string
	for _, row := range coverageGoals(suite, cfg.scenarios) {
		cov := SimCoverage{Row: row.ID, Name: row.Name, Covered: true}
		for _, o := range row.Orders {
			n := orders[row.ID][o]
			cov.Orders = append(cov.Orders, SimOrder{Order: o, Runs: n})
			if n == 0 {
				cov.Covered = false
				missing = append(missing, fmt.Sprintf("%s %q", row.ID, o))
			}
		}
		sr.Coverage = append(sr.Coverage, cov)
	}
	if len(missing) > 0 {
		rep.Note = "race coverage incomplete: no run took " + strings.Join(missing, ", ") +
			"; raise --seeds or --budget (a campaign that misses either order of a race row is inconclusive, not a pass)"
	}
	return rep
}

// printSimSummary prints the tables, the failures and the verdict.
func printSimSummary(w io.Writer, rep *Report) {
	sr := rep.Sim
	bugs := "none"
	if len(sr.Bugs) > 0 {
		bugs = strings.Join(sr.Bugs, ",")
	}
	fmt.Fprintf(w, "frameproof sim: %d scenarios x %d backends, seeds %d..%d, shard %s, bugs: %s",
		len(sr.Scenarios), len(sr.Backends), sr.BaseSeed, sr.BaseSeed+uint64(sr.Seeds)-1, sr.Shard, bugs)
	if sr.Budget != "" {
		fmt.Fprintf(w, ", budget %s", sr.Budget)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "scenario\tbackend\t  runs\tfailed\t     steps\t runs/s\t steps/s\tverdict")
	for _, c := range sr.Cells {
		verdict := strings.ToUpper(c.Verdict)
		if c.StoppedBy != "" {
			verdict += fmt.Sprintf(" (%d/%d seeds, %s budget)", c.Runs, c.Planned, c.StoppedBy)
		}
		fmt.Fprintf(tw, "%s\t%s\t%6d\t%6d\t%10d\t%7.1f\t%8.0f\t%s\n", c.Scenario, c.Backend, c.Runs, c.Failed, c.Steps,
			c.RunsPerSecond, c.StepsPerSecond, verdict)
	}
	tw.Flush()
	if len(sr.Coverage) > 0 {
		fmt.Fprintln(w)
		fmt.Fprintln(w, "race coverage (runs that took each order)")
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "row\torder A\t  runs\torder B\t  runs\t")
		for _, c := range sr.Coverage {
			cols := []string{c.Row}
			for _, o := range c.Orders {
				cols = append(cols, o.Order, fmt.Sprintf("%6d", o.Runs))
			}
			status := "ok"
			if !c.Covered {
				status = "MISSING"
			}
			fmt.Fprintf(tw, "%s\t%s\t\n", strings.Join(cols, "\t"), status)
		}
		tw.Flush()
	}
	t := sr.Throughput
	fmt.Fprintln(w)
	fmt.Fprintf(w, "throughput: %d runs, %d steps in %.1fs wall on %d jobs (%.1f runs/s, %.0f steps/s)\n",
		t.Runs, t.Steps, t.WallSeconds, t.Jobs, t.RunsPerSecond, t.StepsPerSecond)
	fmt.Fprintf(w, "crash states: %d distinct disk images after %d simulated power losses\n", t.DistinctCrashImages, t.Crashes)
	if len(sr.Failures) > 0 {
		fmt.Fprintln(w)
		fmt.Fprintf(w, "failures (%d):\n", len(sr.Failures))
		for _, f := range sr.Failures {
			fmt.Fprintf(w, "FAIL %s/%s seed %d %s: %s\n", f.Scenario, f.Backend, f.Seed, f.Kind, firstLine(f.Message))
			fmt.Fprintf(w, "  repro: %s\n", f.Repro)
			fmt.Fprintf(w, "  shrunk tape: %d -> %d choices", f.TapeLen, f.ShrunkTapeLen)
			if f.ShrunkMessage != "" && f.ShrunkMessage != f.Message {
				fmt.Fprintf(w, " (fails with: %s)", firstLine(f.ShrunkMessage))
			}
			fmt.Fprintln(w)
			for _, p := range f.Files {
				fmt.Fprintf(w, "  wrote %s\n", p)
			}
		}
	}
	for _, c := range sr.Cells {
		if c.Error != "" {
			fmt.Fprintf(w, "ERROR %s/%s: %s\n", c.Scenario, c.Backend, c.Error)
		}
	}
	fmt.Fprintln(w)
	if rep.Note != "" {
		fmt.Fprintf(w, "note: %s\n", rep.Note)
	}
	fmt.Fprintf(w, "verdict: %s\n", strings.ToUpper(rep.Verdict))
}

// writeFailureReports writes, for every failure, its shrunk tape, the full
// trace of the seed and the HTML report into cfg.reportDir.
func writeFailureReports(suite simSuite, cfg simConfig, sr *SimReport) error {
	if err := os.MkdirAll(cfg.reportDir, 0o755); err != nil {
		return err
	}
	byName := map[string]simScenario{}
	for _, sc := range cfg.scenarios {
		byName[sc.Name] = sc
	}
	for i := range sr.Failures {
		f := &sr.Failures[i]
		stem := filepath.Join(cfg.reportDir, fmt.Sprintf("%s-%s-%d", f.Scenario, f.Backend, f.Seed))
		t := target{scenario: byName[f.Scenario], backend: f.Backend, bugs: f.Bugs, seed: f.Seed}
		if f.ShrunkTape != nil {
			tf := tapeFile{Schema: TapeSchema, Scenario: f.Scenario, Backend: f.Backend, Bugs: f.Bugs, Seed: f.Seed,
				Kind: f.Kind, Message: f.ShrunkMessage, OriginalLen: f.TapeLen, Tape: f.ShrunkTape}
			if err := writeTapeFile(stem+".tape.json", tf); err != nil {
				return err
			}
			f.Files = append(f.Files, stem+".tape.json")
		}
		first, second, err := runTwice(t)
		if err != nil {
			return err
		}
		if first.Trace != nil {
			if err := writeTrace(stem+".jsonl", first); err != nil {
				return err
			}
			f.Files = append(f.Files, stem+".jsonl")
		}
		if err := writeHTMLReport(stem+".html", htmlReportInput{Target: t, Outcome: first, RerunHash: second.TraceHash,
			TraceFile: stem + ".jsonl", Model: suite.LinzModel()}); err != nil {
			return err
		}
		f.Files = append(f.Files, stem+".html")
	}
	return nil
}

// progress reports campaign progress on stderr: a bar redrawn in place on a
// terminal, plain lines otherwise, nothing with -q.
type progress struct {
	mu                  sync.Mutex
	w                   io.Writer
	off, tty            bool
	total, done, failed int
	cellsDone           int
	began, last         time.Time
}

func newProgress(w io.Writer, quiet bool) *progress {
	return &progress{w: w, off: quiet, tty: isTTY(w)}
}

func (p *progress) start(total int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.total, p.began, p.last = total, time.Now(), time.Now()
}

func (p *progress) run(failed bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done++
	if failed {
		p.failed++
	}
	if p.off {
		return
	}
	now := time.Now()
	switch {
	case p.tty && now.Sub(p.last) >= 100*time.Millisecond:
		p.last = now
		p.drawBar(now)
	case !p.tty && now.Sub(p.last) >= 10*time.Second:
		p.last = now
		fmt.Fprintf(p.w, "sim: %d/%d runs, %d failed, %.0fs\n", p.done, p.total, p.failed, now.Sub(p.began).Seconds())
	}
}

func (p *progress) drawBar(now time.Time) {
	const width = 30
	filled := 0
	if p.total > 0 {
		filled = min(width, p.done*width/p.total)
	}
	fmt.Fprintf(p.w, "\r[%s%s] %d/%d runs  %d failed  %.0fs ", strings.Repeat("#", filled), strings.Repeat(".", width-filled),
		p.done, p.total, p.failed, now.Sub(p.began).Seconds())
}

func (p *progress) cellDone(c *cellResult) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cellsDone++
	if p.off || p.tty {
		return
	}
	fmt.Fprintf(p.w, "sim: %s/%s done: %d runs, %d failed (%d runs total, %.0fs)\n", c.scenario, c.backend,
		c.summary.Runs, len(c.summary.Failures), p.done, time.Since(p.began).Seconds())
}

func (p *progress) finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.off && p.tty {
		fmt.Fprintf(p.w, "\r%s\r", strings.Repeat(" ", 72))
	}
}
