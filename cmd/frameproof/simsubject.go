package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/frameproof/frameproof/props/pirecovery"
	"github.com/frameproof/frameproof/props/pisubject"
	"github.com/frameproof/frameproof/sim/subject"
	"github.com/frameproof/frameproof/sim/subject/implsubject"
)

// `frameproof sim --subject pi` runs the subject campaign (sim/subject)
// against pi's own harness through its stdio driver; `--subject lane` runs
// it against impl/lane in process (sim/subject/implsubject), through the
// same boundary; `--subject impl` (the default) is the in-process campaign
// of sim/lanesim, unchanged.

const simSubjectUsage = "usage: frameproof sim --subject pi[@VERSION]|lane[@VERSION] [--scenario NAME,...] [--session jsonl,memory] [--seeds N] [--seed BASE] [--determinism N] [-q]"

// Subject names.
const (
	subjectImpl = "impl"
	subjectPi   = "pi"
	subjectLane = "lane"
)

// subjectArg takes --subject NAME (or --subject=NAME) out of args.
func subjectArg(args []string) (name string, rest []string, found bool) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--subject" || a == "-subject":
			if i+1 < len(args) {
				name = args[i+1]
				i++
			}
			found = true
		case strings.HasPrefix(a, "--subject=") || strings.HasPrefix(a, "-subject="):
			name, found = a[strings.Index(a, "=")+1:], true
		default:
			rest = append(rest, a)
		}
	}
	return name, rest, found
}

func runSubjectSim(name string, args []string, stdout, stderr io.Writer) int {
	base0, version, _ := strings.Cut(name, "@")
	if base0 != subjectPi && base0 != subjectLane {
		return usageError(stderr, "sim", "unknown --subject %q (known: %s, %s[@VERSION], %s[@VERSION])", name, subjectImpl, subjectPi, subjectLane)
	}
	if version == "" {
		version = pirecovery.DefaultRelease
	}
	rel, err := pirecovery.ReleaseOf(version)
	if err != nil {
		return usageError(stderr, "sim", "--subject %s: %v", name, err)
	}
	opts, det, quiet, code := parseSubjectFlags(name, args, stdout, stderr)
	if code >= 0 {
		return code
	}
	tmp, err := subject.TempDir()
	if err != nil {
		return ioError(stderr, "sim", "temporary directory: %v", err)
	}
	defer os.RemoveAll(tmp)
	opts.TempDir = tmp
	// A signal kills the running driver's process group and ends the
	// campaign at the next run: no node outlives frameproof.
	ctx, stop := interruptContext()
	defer stop()
	opts.Stop = func() bool { return ctx.Err() != nil }
	if base0 == subjectLane {
		// impl/lane under the release's options, the model under the same
		opts.Run = subject.Options{StoredDelayCap: rel.StoredDelayCap, ErrorPatterns: rel.ErrorPatterns}
		lo := implsubject.Options{StoredDelayCap: rel.StoredDelayCap, ErrorPatterns: rel.ErrorPatterns}
		opts.New = func() (subject.Subject, error) { return implsubject.New(lo), nil }
	} else if code := piSubject(ctx, &opts, version, stderr); code >= 0 {
		return code
	}
	if !quiet {
		opts.Progress = func(o subject.Outcome, seed uint64) {
			verdict := "pass"
			if o.Failed {
				verdict = "FAIL " + string(o.Kind)
			}
			fmt.Fprintf(stderr, "%s/%s seed %d: %s (%d transactions)\n", o.Scenario, o.Session, seed, verdict, o.TXCompared)
		}
	}
	rep, err := subject.Campaign(opts)
	if ctx.Err() != nil {
		_ = rep.WriteCoverage(stdout)
		fmt.Fprintf(stdout, "verdict: interrupted (%d runs finished; %d failed)\n", rep.Runs, len(rep.Failures))
		if len(rep.Failures) > 0 {
			return exitFail
		}
		return exitCode(classInterrupted)
	}
	if err != nil {
		return envError(stderr, "sim", "%v", err)
	}
	return subjectVerdict(rep, opts, det, stdout, stderr)
}

// parseSubjectFlags reads a subject campaign's flags (code >= 0: exit with it).
func parseSubjectFlags(name string, args []string, stdout, stderr io.Writer) (opts subject.CampaignOptions, det int, quiet bool, code int) {
	fs := flag.NewFlagSet("sim --subject "+name, flag.ContinueOnError)
	scen := fs.String("scenario", "", "comma-separated subject scenarios (default: all)")
	sessions := fs.String("session", "", "comma-separated session kinds: jsonl, memory (default: both)")
	seeds := fs.Int("seeds", 10, "seeds per scenario x session")
	base := fs.Uint64("seed", 1, "first seed")
	detp := fs.Int("determinism", 0, "also run the first seed of each cell N times and count the distinct traces")
	q := fs.Bool("q", false, "no progress output")
	if code := parseFlags(fs, args, simSubjectUsage, func(w io.Writer) { subjectHelp(w) }, stdout, stderr); code >= 0 {
		return opts, 0, false, code
	}
	if fs.NArg() != 0 {
		return opts, 0, false, usageError(stderr, "sim", "unexpected argument %q", fs.Arg(0))
	}
	if *seeds <= 0 {
		return opts, 0, false, usageError(stderr, "sim", "--seeds must be positive, got %d", *seeds)
	}
	opts = subject.CampaignOptions{Subject: name, Seeds: *seeds, FirstSeed: *base}
	if *scen != "" {
		for _, n := range strings.Split(*scen, ",") {
			sc, ok := subject.ScenarioByName(n)
			if !ok {
				return opts, 0, false, usageError(stderr, "sim", "unknown subject scenario %q", n)
			}
			opts.Scenarios = append(opts.Scenarios, sc)
		}
	}
	if *sessions != "" {
		for _, n := range strings.Split(*sessions, ",") {
			s := subject.Session(n)
			if s != subject.SessionJSONL && s != subject.SessionMemory {
				return opts, 0, false, usageError(stderr, "sim", "unknown --session %q (known: jsonl, memory)", n)
			}
			opts.Sessions = append(opts.Sessions, s)
		}
	}
	return opts, *detp, *q, -1
}

// piSubject sets the campaign up on pi's harness of release version: the
// peer installed, its driver per run (code >= 0: exit with it).
func piSubject(ctx context.Context, opts *subject.CampaignOptions, version string, stderr io.Writer) int {
	dir, err := pisubject.Dir()
	if err != nil {
		return ioError(stderr, "sim", "pi's harness: %v", err)
	}
	piDir, run, err := pisubject.Release(version)
	if err != nil {
		return ioError(stderr, "sim", "pi's harness %s: %v", version, err)
	}
	opts.Run = run
	opts.New = func() (subject.Subject, error) {
		return pisubject.New(pisubject.Options{Dir: dir, Pi: piDir, Version: version, Context: ctx}), nil
	}
	return -1
}

// subjectVerdict prints the failures, the coverage, the determinism
// counts when asked, and the verdict, and returns the exit code.
func subjectVerdict(rep subject.Report, opts subject.CampaignOptions, det int, stdout, stderr io.Writer) int {
	for _, f := range rep.Failures {
		fmt.Fprintf(stdout, "FAIL %s/%s seed %d (%s): %s\n  reproduce: %s\n", f.Outcome.Scenario, f.Outcome.Session, f.Seed, f.Outcome.Kind, f.Outcome.Message, f.Repro)
	}
	if err := rep.WriteCoverage(stdout); err != nil {
		return exitIO
	}
	if det > 0 {
		scs, ss := opts.Scenarios, opts.Sessions
		if scs == nil {
			scs = subject.Scenarios
		}
		if ss == nil {
			ss = subject.Sessions
		}
		fmt.Fprintf(stdout, "determinism (seed %d, %d runs each):\n", opts.FirstSeed, det)
		for _, sc := range scs {
			for _, s := range ss {
				traces, verdicts, err := subject.Determinism(opts, sc, s, opts.FirstSeed, det)
				if err != nil {
					return ioError(stderr, "sim", "%v", err)
				}
				fmt.Fprintf(stdout, "  %s/%s: %d distinct trace(s), %d distinct verdict(s)\n", sc.Name, s, traces, verdicts)
			}
		}
	}
	if len(rep.Failures) > 0 {
		fmt.Fprintf(stdout, "verdict: FAIL (%d of %d runs)\n", len(rep.Failures), rep.Runs)
		return exitFail
	}
	if missed := rep.Unreached(); len(missed) > 0 {
		fmt.Fprintf(stdout, "verdict: inconclusive (%d runs passed; orders no run took: %s)\n", rep.Runs, strings.Join(missed, ", "))
		return exitCode(classInconclusive)
	}
	fmt.Fprintf(stdout, "verdict: pass (%d runs)\n", rep.Runs)
	return exitPass
}

func subjectHelp(w io.Writer) {
	fmt.Fprintln(w, "Runs the race-table scenarios pi's public API can express against pi's own harness")
	fmt.Fprintln(w, "(npm @earendil-works/pi-agent-core 0.85.1 in corpus/peers/pi-agent-core, installed on first use),")
	fmt.Fprintln(w, "comparing every committed transaction with model/lane. pi@VERSION runs a later pinned release")
	fmt.Fprintln(w, "(0.87.1, 0.99.1: corpus/peers/pi-agent-core-VERSION) under that release's options. --subject lane[@VERSION]")
	fmt.Fprintln(w, "runs the same scenarios against impl/lane in process, through the same boundary, under the release's options. Scenarios:")
	for _, sc := range subject.Scenarios {
		fmt.Fprintf(w, "  %-14s %s\n", sc.Name, sc.Desc)
	}
}
