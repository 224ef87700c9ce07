package bench

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/frameproof/frameproof/props/peer/procgroup"
)

// The campaign family: the default campaign (`frameproof sim -q`, every
// scenario × backend × 300 seeds) of this build beside a base build's, run
// as child processes in alternating pairs, so a claim like "5× the
// scenarios per second of commit X" is printed by a command instead of
// typed from /usr/bin/time. It needs Options.Base, so it runs only when
// named (`frameproof bench --family campaign --base BIN`).
func init() {
	Register(Family{
		Name:      "campaign",
		Summary:   "the default campaign (sim -q) of this build beside --base BIN's, alternated in pairs (only when named)",
		Run:       runCampaign,
		NeedsBase: true,
		Shape: func(o Options) []TableShape {
			rows := o.pairs() // a row a pair, and the median of more than one
			if rows > 1 {
				rows++
			}
			return shapesOf(rows, campaignTable(o, "", nil))
		},
	})
}

// campaignArgs is the run both builds make: the default campaign, quiet.
// (A tape directory is made only on a failure, and a failing campaign is
// an error here, so neither side writes one.) Quick runs two seeds, whose
// race coverage is incomplete: exit 3 is accepted there.
func campaignArgs(quick bool) []string {
	if quick {
		return []string{"sim", "-q", "--seeds", "2"}
	}
	return []string{"sim", "-q"}
}

// campaignRun is what one child campaign cost and did.
type campaignRun struct {
	user, sys, wall time.Duration
	runs, steps     int
}

func (r campaignRun) cpu() time.Duration { return r.user + r.sys }

// runsPer is runs per second of d.
func (r campaignRun) runsPer(d time.Duration) float64 { return float64(r.runs) / d.Seconds() }

func runCampaign(ctx context.Context, o Options) ([]Table, error) {
	if o.Base == "" {
		return nil, errors.New("--base BIN is required: a frameproof binary built from the commit to compare against")
	}
	self, err := o.self()
	if err != nil {
		return nil, err
	}
	args := campaignArgs(o.Quick)
	t := campaignTable(o, self, args)
	var base, this campaignRun
	var bases, theirs []campaignRun
	for pair := 1; pair <= o.pairs(); pair++ {
		if base, err = runChildCampaign(ctx, o.Base, args, o.Quick); err != nil {
			return nil, fmt.Errorf("base %s: %w", o.Base, err)
		}
		if this, err = runChildCampaign(ctx, self, args, o.Quick); err != nil {
			return nil, fmt.Errorf("this build %s: %w", self, err)
		}
		bases, theirs = append(bases, base), append(theirs, this)
		t.Rows = append(t.Rows, campaignRow(strconv.Itoa(pair), base, this))
	}
	if len(bases) > 1 {
		t.Rows = append(t.Rows, campaignRow("median", medianRun(bases), medianRun(theirs)))
	}
	t.Notes = append(t.Notes, fmt.Sprintf("Each side's last campaign: base %d runs of %d steps (%.0f a run), this build %d runs of %d steps (%.0f a run).",
		base.runs, base.steps, float64(base.steps)/float64(base.runs), this.runs, this.steps, float64(this.steps)/float64(this.runs)))
	return []Table{t}, nil
}

func campaignRow(label string, base, this campaignRun) []string {
	seconds := func(d time.Duration) string { return fmt.Sprintf("%.1f", d.Seconds()) }
	return []string{label,
		seconds(base.cpu()) + " (" + seconds(base.wall) + " s)", Num(base.runsPer(base.cpu())),
		seconds(this.cpu()) + " (" + seconds(this.wall) + " s)", Num(this.runsPer(this.cpu())),
		Ratio(this.runsPer(this.cpu()), base.runsPer(base.cpu())),
		Ratio(this.runsPer(this.wall), base.runsPer(base.wall)),
		Ratio(this.runsPer(this.user), base.runsPer(base.user))}
}

func campaignTable(o Options, self string, args []string) Table {
	t := Table{
		Title: "Simulator: the default campaign beside a base build",
		Header: []string{"pair", "base CPU-s (wall)", "base runs per CPU-s", "this CPU-s (wall)", "this runs per CPU-s",
			"per CPU-s", "per wall-s", "user time only"},
		Notes: []string{
			fmt.Sprintf("`frameproof bench --family campaign --base %s --pairs %d`: each pair runs `%s` by the base build (%s), then by this one (%s), as child processes, one after the other. CPU-s is the child's user + system time (getrusage of the child: every thread, GC included); the ratios are this build's runs per second over the base's, per CPU-s, per wall-s and per user-CPU-s (a build that spends more in the kernel shows it in the gap between the first and the last). The median row pairs each side's campaign of median CPU time.",
				o.Base, o.pairs(), "frameproof "+strings.Join(args, " "), o.Base, self),
		},
	}
	if o.Quick {
		t.Notes = append(t.Notes, "--quick: two seeds a cell, a smoke run, not figures.")
	}
	return t
}

// medianRun is each side's median pair: the run of median CPU time (the
// lower middle one of an even count), whole, so its row's figures are one
// campaign's. On a shared machine one pair can land in a burst of load;
// the median row is the figure that does not hang on one pair.
func medianRun(runs []campaignRun) campaignRun {
	sorted := slices.SortedFunc(slices.Values(runs), func(a, b campaignRun) int { return cmp.Compare(a.cpu(), b.cpu()) })
	return sorted[(len(sorted)-1)/2]
}

// throughputLine is the campaign's summary line, the same in every build
// since the first: "throughput: N runs, M steps in ...".
var throughputLine = regexp.MustCompile(`(?m)^throughput: (\d+) runs, (\d+) steps `)

// campaignTimeout bounds one child campaign: 6ec268c's took 80-100 s
// wall in docs/BENCH.md's campaign table, so a child past this is stuck,
// not slow.
const campaignTimeout = 30 * time.Minute

// childOutputLimit is how much of each of a child's outputs is kept: a
// campaign's summary is a few KB.
const childOutputLimit = 64 << 10

// runChildCampaign runs bin with args and reads its cost from the child's
// rusage and its size from its throughput line. A campaign that does not
// pass (exit 0; under quick, 3 as well) gives no figure.
func runChildCampaign(ctx context.Context, bin string, args []string, quick bool) (campaignRun, error) {
	ctx, cancel := context.WithTimeout(ctx, campaignTimeout)
	defer cancel()
	// The child runs in the temp directory (below), where a relative path
	// such as ./fp-base would name nothing: it is resolved here, against
	// the caller's directory. A bare name is left to PATH.
	if strings.ContainsRune(bin, filepath.Separator) && !filepath.IsAbs(bin) {
		abs, err := filepath.Abs(bin)
		if err != nil {
			return campaignRun{}, err
		}
		bin = abs
	}
	cmd := procgroup.CommandContext(ctx, bin, args...)
	// Only the ends are read (the summary, the reason of a failure): a
	// child that writes without end cannot grow this process's memory.
	out, errb := procgroup.NewTail(childOutputLimit), procgroup.NewTail(childOutputLimit)
	cmd.Stdout, cmd.Stderr = out, errb
	cmd.Dir = os.TempDir() // where a tape directory would go, not the caller's tree
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	var exit *exec.ExitError
	errors.As(err, &exit)
	switch {
	case err != nil && errors.Is(ctx.Err(), context.DeadlineExceeded):
		return campaignRun{}, fmt.Errorf("killed at its deadline (a campaign gets at most %v): %s", campaignTimeout, lastLine(errb.Bytes(), out.Bytes()))
	case exit != nil && quick && exit.ExitCode() == 3:
	case exit != nil:
		return campaignRun{}, fmt.Errorf("%v: %s", err, lastLine(errb.Bytes(), out.Bytes()))
	case err != nil:
		return campaignRun{}, err
	}
	m := throughputLine.FindSubmatch(out.Bytes())
	if m == nil {
		return campaignRun{}, fmt.Errorf("no \"throughput: N runs, M steps\" line in its output: %s", lastLine(out.Bytes(), errb.Bytes()))
	}
	runs, _ := strconv.Atoi(string(m[1]))
	steps, _ := strconv.Atoi(string(m[2]))
	if runs == 0 {
		return campaignRun{}, errors.New("its campaign ran no scenario")
	}
	ps := cmd.ProcessState
	return campaignRun{user: ps.UserTime(), sys: ps.SystemTime(), wall: wall, runs: runs, steps: steps}, nil
}

// lastLine is the last non-empty line of the first output that has one.
func lastLine(outputs ...[]byte) string {
	for _, o := range outputs {
		if lines := bytes.Split(bytes.TrimSpace(o), []byte("\n")); len(lines[len(lines)-1]) > 0 {
			return string(lines[len(lines)-1])
		}
	}
	return "(no output)"
}

// self is this build's binary: Options.Self, else the running executable.
func (o Options) self() (string, error) {
	if o.Self != "" {
		return o.Self, nil
	}
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("this build's binary: %w", err)
	}
	return filepath.Clean(exe), nil
}

// pairs is Options.Pairs, 3 by default and 1 under Quick.
func (o Options) pairs() int {
	switch {
	case o.Pairs > 0:
		return o.Pairs
	case o.Quick:
		return 1
	}
	return 3
}
