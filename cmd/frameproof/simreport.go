package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/frameproof/frameproof/sim/campaign"
)

// The campaign report types live in sim/campaign (shard runs and their
// merge share them); these names keep the CLI's code readable.
type (
	SimReport     = campaign.Report
	SimCell       = campaign.Cell
	SimCoverage   = campaign.CoverageRow
	SimOrder      = campaign.OrderCount
	SimThroughput = campaign.Throughput
	SimFailure    = campaign.ReportedFailure
)

// judgeSim builds the CLI report of a campaign report, one testcase per
// scenario x backend, and its verdict: a failure is a fail; a cell error,
// a cell not run or a race row missing an order is inconclusive, unless
// the coverage verdict is deferred to the merge of all shards.
func judgeSim(sr *SimReport) *Report {
	rep := &Report{Schema: ReportSchema, Command: "sim", Suites: []ReportSuite{}, Sim: sr}
	for _, cell := range sr.Cells {
		rc := ReportCase{Name: cell.Backend}
		switch cell.Verdict {
		case statusError:
			rc.Status, rc.Detail = statusError, cell.Error
		case statusFail:
			rc.Status = statusFail
		case statusPass:
			rc.Status, rc.Detail = statusPass, fmt.Sprintf("%d runs, %d steps", cell.Runs, cell.Steps)
		default:
			rc.Status, rc.Detail = statusSkipped, "budget exhausted before the first run"
		}
		var details []string
		for _, f := range sr.Failures {
			if f.Scenario == cell.Scenario && f.Backend == cell.Backend {
				d := fmt.Sprintf("seed %d %s: %s\nrepro: %s\nshrunk tape: %d -> %d choices",
					f.Seed, f.Kind, f.Message, f.Repro, f.TapeLen, f.ShrunkTapeLen)
				if len(f.Files) > 0 {
					d += "\nfiles: " + strings.Join(f.Files, " ")
				}
				details = append(details, d)
			}
		}
		if len(details) > 0 {
			rc.Detail = strings.Join(details, "\n")
		}
		rep.add(cell.Scenario, rc)
	}
	var missing []string
	for _, cov := range sr.Coverage {
		for _, o := range cov.Orders {
			if o.Runs == 0 {
				missing = append(missing, fmt.Sprintf("%s %q", cov.Row, o.Order))
			}
		}
	}
	switch {
	case len(missing) > 0 && sr.CoverageDeferred:
		// Counted, not judged: the merge of every shard judges coverage.
	case len(missing) > 0:
		rep.Note = "race coverage incomplete: no run took " + strings.Join(missing, ", ") +
			"; raise --seeds or --budget (a campaign that misses either order of a race row is inconclusive, not a pass)"
	}
	rep.finish()
	sr.Verdict = rep.Verdict
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
		switch c.StoppedBy {
		case "":
		case "interrupted":
			verdict += fmt.Sprintf(" (%d/%d seeds, interrupted)", c.Runs, c.Planned)
		default:
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
	printReach(w, sr.Reach)
	t := sr.Throughput
	fmt.Fprintln(w)
	fmt.Fprintf(w, "throughput: %d runs, %d steps in %.1fs wall on %d jobs (%.1f runs/s, %.0f steps/s)\n",
		t.Runs, t.Steps, t.WallSeconds, t.Jobs, t.RunsPerSecond, t.StepsPerSecond)
	fmt.Fprintf(w, "crash states: %d distinct disk images after %d simulated power losses\n", t.DistinctCrashImages, t.Crashes)
	if ran, planned, why := seedsRun(sr.Cells); ran < planned {
		fmt.Fprintf(w, "seeds: %d of %d planned ran (stopped by %s)\n", ran, planned, why)
	}
	printFailureGroups(w, sr.Failures)
	for _, c := range sr.Cells {
		if c.Error != "" {
			fmt.Fprintf(w, "ERROR %s/%s: %s\n", c.Scenario, c.Backend, c.Error)
		}
	}
	fmt.Fprintln(w)
	if rep.Note != "" {
		fmt.Fprintf(w, "note: %s\n", rep.Note)
	}
	if sr.CoverageDeferred && !allCovered(sr.Coverage) {
		fmt.Fprintln(w, "note: race coverage incomplete on this shard; its verdict is left to `frameproof merge` of all shards (--defer-coverage)")
	}
	fmt.Fprintf(w, "verdict: %s\n", strings.ToUpper(rep.Verdict))
}

// defaultTapeDir is where sim writes shrunk tapes unless --tape-dir or
// --report-dir says otherwise: relative, so a failing CI job or a local run
// leaves them next to where it ran (tests point it at a temporary
// directory).
var defaultTapeDir = "frameproof-failures"

// writeShrunkTapes writes every failure's shrunk tape into cfg.tapeDir,
// created only now that there is something to write, and lists each file
// in the failure's Files.
func writeShrunkTapes(cfg simConfig, sr *SimReport) error {
	if cfg.tapeDir == "" {
		return nil
	}
	for i := range sr.Failures {
		f := &sr.Failures[i]
		if f.ShrunkTape == nil {
			continue
		}
		if err := os.MkdirAll(cfg.tapeDir, 0o755); err != nil {
			return fmt.Errorf("%s: %w", cfg.tapeDir, unwrapPath(err))
		}
		path := filepath.Join(cfg.tapeDir, failureStem(*f)+".tape.json")
		tf := tapeFile{Schema: TapeSchema, Scenario: f.Scenario, Backend: f.Backend, Bugs: f.Bugs, Seed: f.Seed,
			Kind: f.Kind, Message: f.ShrunkMessage, OriginalLen: f.TapeLen, Tape: f.ShrunkTape}
		if err := writeTapeFile(path, tf); err != nil {
			return err
		}
		f.Files = append(f.Files, path)
	}
	return nil
}

// failureStem names a failure's files: scenario, backend and seed.
func failureStem(f SimFailure) string {
	return fmt.Sprintf("%s-%s-%d", f.Scenario, f.Backend, f.Seed)
}

// writeFailureReports writes, for every failure, the full trace of the
// seed and the HTML report into cfg.reportDir (the shrunk tape is
// writeShrunkTapes' job).
func writeFailureReports(suite campaign.Suite, cfg simConfig, sr *SimReport) error {
	if err := os.MkdirAll(cfg.reportDir, 0o755); err != nil {
		return err
	}
	byName := map[string]campaign.Scenario{}
	for _, sc := range cfg.scenarios {
		byName[sc.Name] = sc
	}
	for i := range sr.Failures {
		f := &sr.Failures[i]
		stem := filepath.Join(cfg.reportDir, failureStem(*f))
		t := target{scenario: byName[f.Scenario], backend: f.Backend, bugs: f.Bugs, seed: f.Seed}
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

// Start, Run and CellDone make progress a campaign.Progress.
func (p *progress) Start(total int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.total, p.began, p.last = total, time.Now(), time.Now()
}

func (p *progress) Run(failed bool) {
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

func (p *progress) CellDone(c campaign.Cell) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cellsDone++
	if p.off || p.tty {
		return
	}
	fmt.Fprintf(p.w, "sim: %s/%s done: %d runs, %d failed (%d runs total, %.0fs)\n", c.Scenario, c.Backend,
		c.Runs, c.Failed, p.done, time.Since(p.began).Seconds())
}

func (p *progress) finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.off && p.tty {
		fmt.Fprintf(p.w, "\r%s\r", strings.Repeat(" ", 72))
	}
}

// printFailureGroups prints one block per group: its count and cells, the
// first seed with its reproduction line and shrunk tape; every seed's own
// line is in the JSON and JUnit reports.
func printFailureGroups(w io.Writer, fs []SimFailure) {
	if len(fs) == 0 {
		return
	}
	groups := campaign.GroupFailures(fs)
	fmt.Fprintln(w)
	fmt.Fprintf(w, "failures: %d seeds, %d distinct (kind and message); every seed's repro line is in --json and --junit\n", len(fs), len(groups))
	for _, g := range groups {
		var cells []string
		count := map[string]int{}
		for _, f := range g.Members {
			c := f.Scenario + "/" + f.Backend
			if count[c] == 0 {
				cells = append(cells, c)
			}
			count[c]++
		}
		for i, c := range cells {
			cells[i] = fmt.Sprintf("%s x%d", c, count[c])
		}
		f := g.Members[0]
		fmt.Fprintf(w, "FAIL %s: %s\n", g.Kind, g.Message)
		fmt.Fprintf(w, "  %d seeds: %s\n", len(g.Members), strings.Join(cells, ", "))
		fmt.Fprintf(w, "  first: %s/%s seed %d\n", f.Scenario, f.Backend, f.Seed)
		fmt.Fprintf(w, "  repro: %s\n", f.Repro)
		fmt.Fprintf(w, "  shrunk tape: %d -> %d choices", f.TapeLen, f.ShrunkTapeLen)
		if f.ShrunkMessage != "" && f.ShrunkMessage != f.Message {
			fmt.Fprintf(w, " (fails with: %s)", firstLine(f.ShrunkMessage))
		}
		fmt.Fprintln(w)
		for _, p := range f.Files {
			fmt.Fprintf(w, "  wrote %s\n", p)
		}
		if others := countFiles(g.Members[1:]); others > 0 {
			fmt.Fprintf(w, "  and %d report files for the other seeds, in the same directory\n", others)
		}
	}
}

func countFiles(fs []SimFailure) int {
	n := 0
	for _, f := range fs {
		n += len(f.Files)
	}
	return n
}

func allCovered(rows []SimCoverage) bool {
	for _, r := range rows {
		if !r.Covered {
			return false
		}
	}
	return true
}

// seedsRun sums the cells' runs and planned seeds and names what stopped
// the cells that ended early ("steps budget", "interrupted", ...).
func seedsRun(cells []SimCell) (ran, planned int, why string) {
	var reasons []string
	for _, c := range cells {
		ran += c.Runs
		planned += c.Planned
		r := c.StoppedBy
		switch r {
		case "":
			continue
		case "steps", "duration":
			r += " budget"
		case "failures":
			r = "--max-failures"
		}
		if !slices.Contains(reasons, r) {
			reasons = append(reasons, r)
		}
	}
	return ran, planned, strings.Join(reasons, ", ")
}

// printReach prints the reach table: per reach item of the suite, the runs
// that reached it ("not reached" when none did).
func printReach(w io.Writer, items []campaign.ReachCount) {
	if len(items) == 0 {
		return
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "reach (runs that reached each input)")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "item\trow\torder\t  runs\t")
	for _, it := range items {
		status := "reached"
		if !it.Reached {
			status = "NOT REACHED"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%6d\t%s\n", it.Name, it.Row, it.Order, it.Runs, status)
	}
	tw.Flush()
}
