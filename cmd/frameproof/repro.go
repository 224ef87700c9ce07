package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/frameproof/frameproof/sim/campaign"
	"github.com/frameproof/frameproof/sim/choice"
	"github.com/frameproof/frameproof/sim/shrink"
)

// repro re-runs one seed (or a recorded tape) twice, checks that both runs
// produce the same trace hash, and writes the JSONL trace and an HTML
// report. shrink delta-debugs a failing seed's tape and writes it as a tape
// file that repro --tape replays.

func init() {
	register("repro", "re-run one seed or tape: verdict, determinism check, JSONL trace, HTML report", runRepro)
	register("shrink", "shrink a failing seed's choice tape and write it for repro --tape", runShrink)
}

const (
	reproUsage  = "usage: frameproof repro (SEED --scenario S --backend B | --tape FILE [--force]) [--bug X] [--trace FILE|-] [--html FILE] [--max-tape N] [-q]"
	shrinkUsage = "usage: frameproof shrink SEED --scenario S --backend B [--bug X] [--out FILE] [--attempts N]"
)

// TapeSchema versions tape files.
const TapeSchema = 1

// tapeFile is a recorded (usually shrunk) choice tape with what it needs to
// be replayed: `frameproof repro --tape FILE`.
type tapeFile struct {
	Schema   int      `json:"schema"`
	Scenario string   `json:"scenario"`
	Backend  string   `json:"backend"`
	Bugs     []string `json:"bugs,omitempty"`
	// Seed is the seed the tape was recorded from; Kind and Message the
	// failure it reproduces; OriginalLen the tape length before shrinking.
	Seed        uint64               `json:"seed"`
	Kind        campaign.FailureKind `json:"kind,omitempty"`
	Message     string               `json:"message,omitempty"`
	OriginalLen int                  `json:"originalLen"`
	Tape        choice.Tape          `json:"tape"`
}

// defaultMaxTape bounds a tape file: a shrunk tape is a few hundred bytes
// and an unshrunk one of a long run a few MiB, so 16 MiB is ample and still
// fails fast on a wrong file (repro --tape /dev/zero).
const defaultMaxTape = 16 << 20

// readTapeFile reads at most maxBytes of a tape file; the error names what
// is wrong and the exit code (2 for a file that is not a valid tape, 4 for
// one that cannot be read).
func readTapeFile(path string, maxBytes int64) (tapeFile, int, error) {
	data, code, err := readBounded(path, "--tape "+path, "--max-tape", maxBytes)
	if err != nil {
		return tapeFile{}, code, err
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil {
		return tapeFile{}, exitUsage, fmt.Errorf("--tape %s: not a tape file: %w", path, err)
	}
	for _, k := range tapeFileFields {
		if _, ok := fields[k]; !ok {
			return tapeFile{}, exitUsage, fmt.Errorf("--tape %s: not a tape file: no %q", path, k)
		}
	}
	var tf tapeFile
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&tf); err != nil {
		return tapeFile{}, exitUsage, fmt.Errorf("--tape %s: not a tape file: %w", path, err)
	}
	if err := tf.validate(); err != nil {
		return tapeFile{}, exitUsage, fmt.Errorf("--tape %s: %w", path, err)
	}
	return tf, -1, nil
}

// tapeFileFields lists the keys every tape file carries, so a missing one is
// told apart from a zero value.
var tapeFileFields = []string{"schema", "scenario", "backend", "seed", "originalLen", "tape"}

// validate checks a decoded tape file against its schema: what a recorded
// run can contain. Every recorded choice had a range n >= 2 (a draw with
// n <= 1 records nothing) and a value in [0, n). A tape shrunk to nothing
// (every choice the simplest) is valid only as the result of shrinking a
// longer one (originalLen > 0).
func (tf tapeFile) validate() error {
	switch {
	case tf.Schema != TapeSchema:
		return fmt.Errorf("schema %d, want %d", tf.Schema, TapeSchema)
	case tf.Scenario == "":
		return errors.New(`"scenario" is missing or empty`)
	case tf.Backend == "":
		return errors.New(`"backend" is missing or empty`)
	case tf.Tape == nil:
		return errors.New(`"tape" is missing or null`)
	case tf.OriginalLen < len(tf.Tape):
		return fmt.Errorf(`"originalLen" %d is shorter than the tape (%d choices)`, tf.OriginalLen, len(tf.Tape))
	case len(tf.Tape) == 0 && tf.OriginalLen == 0:
		return errors.New(`"tape" is empty and records no shrinking ("originalLen" 0): not a recorded run`)
	}
	for i, c := range tf.Tape {
		if c.N < 2 {
			return fmt.Errorf("choice %d (%q): n %d, want >= 2 (a draw over fewer values is never recorded)", i, c.Label, c.N)
		}
		if c.V < 0 || c.V >= c.N {
			return fmt.Errorf("choice %d (%q): value %d out of range [0, %d)", i, c.Label, c.V, c.N)
		}
	}
	return nil
}

func writeTapeFile(path string, tf tapeFile) error {
	data, err := encodeTapeFile(tf)
	if err != nil {
		return err
	}
	if err := writeOutput(path, append(data, '\n')); err != nil {
		return fmt.Errorf("write tape %s: %w", path, unwrapPath(err))
	}
	return nil
}

// encodeTapeFile writes the header indented and the tape one choice a line
// ({"l":"sched","n":5,"v":2}), so a person can read a shrunk failure step by
// step and a diff of two tapes shows the choices that differ.
func encodeTapeFile(tf tapeFile) ([]byte, error) {
	tape := tf.Tape
	tf.Tape = choice.Tape{} // the header alone, ending in "tape": []
	head, err := json.MarshalIndent(tf, "", " ")
	if err != nil {
		return nil, fmt.Errorf("encode tape: %w", err)
	}
	// "tape" is the last member and a string's quotes are escaped, so its
	// empty array is the last "[]" of the header.
	at := bytes.LastIndex(head, []byte("[]"))
	var b bytes.Buffer
	b.Write(head[:at])
	if len(tape) == 0 {
		b.WriteString("[]") // shrunk to nothing, which validate accepts with originalLen > 0
	} else {
		b.WriteString("[\n")
		for i, c := range tape {
			line, err := json.Marshal(c)
			if err != nil {
				return nil, fmt.Errorf("encode tape: choice %d: %w", i, err)
			}
			b.WriteString("  ")
			b.Write(line)
			if i < len(tape)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		b.WriteString(" ]")
	}
	b.Write(head[at+2:])
	return b.Bytes(), nil
}

// parseInterspersed parses flags that may come before or after positional
// arguments ("repro 17 --scenario x" and "repro --scenario x 17"). It
// returns the positional arguments, or the exit code to stop with (see
// parseFlags).
func parseInterspersed(fs *flag.FlagSet, args []string, usageLine string, stdout, stderr io.Writer) ([]string, int) {
	var pos []string
	for {
		if code := parseFlags(fs, args, usageLine, nil, stdout, stderr); code >= 0 {
			return nil, code
		}
		if fs.NArg() == 0 {
			return pos, -1
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

// target is what repro and shrink run: one scenario on one backend with
// some bugs, from a seed or a tape.
type target struct {
	scenario campaign.Scenario
	backend  string
	bugs     []string
	seed     uint64
	tape     choice.Tape // nil: run the seed
	tapePath string      // the tape file, for the reproduction command
}

// command is the one line that reproduces the target.
func (t target) command() string {
	if t.tape == nil {
		return campaign.Repro(t.seed, t.scenario.Name, t.backend, strings.Join(t.bugs, ","))
	}
	path := t.tapePath
	if path == "" {
		path = "FILE"
	}
	return t.tapeCommand(path)
}

func (t target) source() choice.Source {
	if t.tape != nil {
		return choice.NewReplay(t.tape)
	}
	return choice.NewSeeded(t.seed)
}

// run runs the target once in a fresh temporary directory.
func (t target) run(keepTrace bool) (campaign.Outcome, error) {
	dir, err := os.MkdirTemp("", "frameproof-repro-*")
	if err != nil {
		return campaign.Outcome{}, fmt.Errorf("repro: temporary directory: %w", err)
	}
	defer os.RemoveAll(dir)
	return t.scenario.Run(t.source(), campaign.RunOptions{Backend: t.backend, Bugs: t.bugs, TempDir: dir, KeepTrace: keepTrace}), nil
}

func (t target) what() string {
	s := fmt.Sprintf("seed %d", t.seed)
	if t.tape != nil {
		s = fmt.Sprintf("tape of %d choices (from seed %d)", len(t.tape), t.seed)
	}
	s += fmt.Sprintf(", scenario %s, backend %s", t.scenario.Name, t.backend)
	if len(t.bugs) > 0 {
		s += ", bug " + strings.Join(t.bugs, ",")
	}
	return s
}

// targetFlags are the flags repro and shrink share.
type targetFlags struct {
	scenario, backend, bug *string
	// force replays a tape under flags that differ from what it recorded;
	// bugSet says --bug was given (--bug "" asks for no bug at all).
	force  *bool
	bugSet bool
}

func addTargetFlags(fs *flag.FlagSet) *targetFlags {
	return &targetFlags{
		scenario: fs.String("scenario", "", "scenario name"),
		backend:  fs.String("backend", "", "store backend: "+strings.Join(activeSuite.Backends(), ", ")),
		bug:      fs.String("bug", "", "inject the named bug(s), comma-separated"),
		force:    new(bool),
	}
}

// noteSet records which flags the command line set (after parsing).
func (f *targetFlags) noteSet(fs *flag.FlagSet) {
	fs.Visit(func(fl *flag.Flag) { f.bugSet = f.bugSet || fl.Name == "bug" })
}

// matchTape refuses flags that contradict the tape's recorded scenario,
// backend or bugs: the tape's choices only mean the run they were
// recorded in. --force replays it anyway.
func (f *targetFlags) matchTape(tf *tapeFile) error {
	if *f.force {
		return nil
	}
	var diffs []string
	if *f.scenario != "" && *f.scenario != tf.Scenario {
		diffs = append(diffs, fmt.Sprintf("--scenario %s (tape: %s)", *f.scenario, tf.Scenario))
	}
	if *f.backend != "" && *f.backend != tf.Backend {
		diffs = append(diffs, fmt.Sprintf("--backend %s (tape: %s)", *f.backend, tf.Backend))
	}
	if f.bugSet && !sameNames(*f.bug, tf.Bugs) {
		diffs = append(diffs, fmt.Sprintf("--bug %q (tape: %q)", *f.bug, strings.Join(tf.Bugs, ",")))
	}
	if len(diffs) == 0 {
		return nil
	}
	return fmt.Errorf("%s differ from what the tape recorded; the tape replays only its own run (--force to replay it anyway)", strings.Join(diffs, ", "))
}

// sameNames compares a comma-separated list with a slice, ignoring order.
func sameNames(list string, names []string) bool {
	var got []string
	for _, n := range strings.Split(list, ",") {
		if n = strings.TrimSpace(n); n != "" {
			got = append(got, n)
		}
	}
	want := slices.Clone(names)
	slices.Sort(got)
	slices.Sort(want)
	return slices.Equal(got, want)
}

// resolve builds the target; tf (may be nil) supplies defaults from a tape.
func (f *targetFlags) resolve(suite campaign.Suite, seedArg string, tf *tapeFile) (target, error) {
	var t target
	scen, backend, bug := *f.scenario, *f.backend, *f.bug
	if tf != nil {
		t.seed, t.tape = tf.Seed, tf.Tape
		if t.tape == nil {
			t.tape = choice.Tape{}
		}
		if err := f.matchTape(tf); err != nil {
			return t, err
		}
		if scen == "" {
			scen = tf.Scenario
		}
		if backend == "" {
			backend = tf.Backend
		}
		if bug == "" && !f.bugSet {
			bug = strings.Join(tf.Bugs, ",")
		}
	} else {
		seed, err := strconv.ParseUint(seedArg, 10, 64)
		if err != nil {
			return t, fmt.Errorf("SEED %q: not an unsigned integer", seedArg)
		}
		t.seed = seed
	}
	if scen == "" {
		return t, fmt.Errorf("--scenario is required (valid: %s)", strings.Join(scenarioNames(suite), ", "))
	}
	if backend == "" {
		return t, fmt.Errorf("--backend is required (valid: %s)", strings.Join(suite.Backends(), ", "))
	}
	scs, err := lookupScenarios(suite, scen)
	if err != nil {
		return t, fmt.Errorf("--scenario: %w", err)
	}
	if len(scs) != 1 {
		return t, fmt.Errorf("--scenario: give exactly one scenario")
	}
	t.scenario = scs[0]
	if !slices.Contains(suite.Backends(), backend) {
		return t, fmt.Errorf("--backend: unknown backend %q (valid: %s)", backend, strings.Join(suite.Backends(), ", "))
	}
	t.backend = backend
	if t.bugs, err = lookupNames("bug", bug, suite.BugNames(), nil); err != nil {
		return t, fmt.Errorf("--bug: %w", err)
	}
	return t, nil
}

func runRepro(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	suite := activeSuite
	fs := flag.NewFlagSet("repro", flag.ContinueOnError)
	tflags := addTargetFlags(fs)
	tapePath := fs.String("tape", "", "replay this tape file (from frameproof shrink) instead of a seed")
	tflags.force = fs.Bool("force", false, "replay a tape even under --scenario/--backend/--bug that differ from what it recorded")
	maxTape := fs.Int64("max-tape", defaultMaxTape, "largest tape file accepted, in bytes")
	tracePath := fs.String("trace", "", "write the JSONL trace here, - for stdout (default frameproof-repro-<scenario>-<backend>-<seed>.jsonl)")
	htmlPath := fs.String("html", "", "write the HTML report here (default frameproof-repro-<scenario>-<backend>-<seed>.html)")
	quiet := fs.Bool("q", false, "print only the verdict")
	usageErr := func(err error) int {
		return usageError(stderr, "repro", "%v", err)
	}
	pos, code := parseInterspersed(fs, args, reproUsage, stdout, stderr)
	if code >= 0 {
		return code
	}
	tflags.noteSet(fs)
	if *maxTape <= 0 {
		return usageErr(fmt.Errorf("--max-tape must be positive, got %d", *maxTape))
	}
	var tf *tapeFile
	switch {
	case *tapePath != "" && len(pos) == 0:
		f, code, err := readTapeFile(*tapePath, *maxTape)
		if err != nil {
			fmt.Fprintln(stderr, "frameproof repro:", err)
			return code
		}
		tf = &f
	case *tapePath == "" && len(pos) == 1:
	default:
		return usageErr(errors.New("give exactly one of SEED or --tape FILE"))
	}
	seedArg := ""
	if len(pos) == 1 {
		seedArg = pos[0]
	}
	t, err := tflags.resolve(suite, seedArg, tf)
	if err != nil {
		return usageErr(err)
	}
	if needsBugBuild(suite, t.bugs) {
		return runBugBuild(append([]string{"repro"}, args...), stdout, stderr)
	}
	t.tapePath = *tapePath
	stem := fmt.Sprintf("frameproof-repro-%s-%s-%d", t.scenario.Name, t.backend, t.seed)
	if t.tape != nil {
		stem += "-tape"
	}
	if *tracePath == "" {
		*tracePath = stem + ".jsonl"
	}
	if *htmlPath == "" {
		*htmlPath = stem + ".html"
	}
	if err := errors.Join(checkOutputFile("--trace", *tracePath), checkOutputFile("--html", *htmlPath)); err != nil {
		return ioError(stderr, "repro", "%v", err)
	}

	first, second, err := runTwice(t)
	if err != nil {
		return ioError(stderr, "repro", "%v", err)
	}
	info := stdout
	if *tracePath == "-" {
		info = stderr // stdout carries the trace
	}
	fmt.Fprintf(info, "repro: %s\n", t.what())
	if first.TraceHash != second.TraceHash {
		fmt.Fprintf(info, "NONDETERMINISTIC: two runs of the same %s produced different trace hashes\n  %s\n  %s\n",
			t.what(), first.TraceHash, second.TraceHash)
		fmt.Fprintln(info, "the simulator (not the code under test) is broken: a run depends on something other than its choices")
		writeReproArtifacts(t, first, *tracePath, *htmlPath, second.TraceHash, stdout, stderr, info)
		return exitFail
	}
	if *quiet {
		printVerdictLine(info, first)
	} else {
		printOutcome(info, first, second)
	}
	werr := writeReproArtifacts(t, first, *tracePath, *htmlPath, second.TraceHash, stdout, stderr, info)
	if first.Failed {
		return exitFail
	}
	return outputCode(exitPass, werr)
}

// runTwice runs the target twice with full traces.
func runTwice(t target) (campaign.Outcome, campaign.Outcome, error) {
	first, err := t.run(true)
	if err != nil {
		return first, first, err
	}
	second, err := t.run(true)
	return first, second, err
}

func printVerdictLine(w io.Writer, o campaign.Outcome) {
	if o.Failed {
		fmt.Fprintf(w, "verdict: FAIL (%s): %s\n", o.Kind, o.Message)
	} else {
		fmt.Fprintln(w, "verdict: PASS")
	}
}

func printOutcome(w io.Writer, o, again campaign.Outcome) {
	printVerdictLine(w, o)
	fmt.Fprintf(w, "steps: %d\n", o.Steps)
	if o.Checks > 0 {
		fmt.Fprintf(w, "checks: %d\n", o.Checks)
	}
	fmt.Fprintf(w, "trace hash: %s (two runs agree)\n", o.TraceHash)
	if len(o.Faults) == 0 {
		fmt.Fprintln(w, "faults: none")
	} else {
		fmt.Fprintf(w, "faults (%d):\n", len(o.Faults))
		for _, f := range o.Faults {
			fmt.Fprintf(w, "  %s\n", f)
		}
	}
	var rows []string
	for _, r := range o.RacesTaken() {
		rows = append(rows, r[0]+"="+strings.Join(r[1:], "+"))
	}
	if len(rows) > 0 {
		fmt.Fprintf(w, "races: %s\n", strings.Join(rows, ", "))
	}
}

// writeReproArtifacts writes the trace and the HTML report, reporting
// write errors on stderr and returning the first: the verdict is already
// printed, and the caller turns the error into the exit code.
func writeReproArtifacts(t target, o campaign.Outcome, tracePath, htmlPath, rerunHash string, stdout, stderr, info io.Writer) error {
	var first error
	report := func(err error) {
		fmt.Fprintln(stderr, "frameproof repro:", err)
		if first == nil {
			first = err
		}
	}
	if o.Trace == nil {
		fmt.Fprintln(stderr, "frameproof repro: the scenario kept no trace")
	} else if tracePath == "-" {
		if err := o.Trace.WriteJSONL(stdout); err != nil {
			report(fmt.Errorf("trace: %w", err))
		}
	} else if err := writeTrace(tracePath, o); err != nil {
		report(err)
	} else {
		fmt.Fprintf(info, "trace: %s (%d records)\n", tracePath, o.Trace.Len())
	}
	link := tracePath
	if tracePath == "-" {
		link = ""
	}
	if err := writeHTMLReport(htmlPath, htmlReportInput{Target: t, Outcome: o, RerunHash: rerunHash, TraceFile: link, Model: activeSuite.LinzModel()}); err != nil {
		report(err)
		return first
	}
	fmt.Fprintf(info, "html: %s\n", htmlPath)
	return first
}

func writeTrace(path string, o campaign.Outcome) error {
	return createWith(path, "trace", o.Trace.WriteJSONL)
}

func runShrink(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	suite := activeSuite
	fs := flag.NewFlagSet("shrink", flag.ContinueOnError)
	tflags := addTargetFlags(fs)
	out := fs.String("out", "", "write the shrunk tape here (default frameproof-shrunk-<scenario>-<backend>-<seed>.json)")
	attempts := fs.Int("attempts", shrink.DefaultMaxAttempts, "shrink budget: replays of candidate tapes")
	usageErr := func(err error) int {
		return usageError(stderr, "shrink", "%v", err)
	}
	pos, code := parseInterspersed(fs, args, shrinkUsage, stdout, stderr)
	if code >= 0 {
		return code
	}
	if len(pos) != 1 {
		return usageErr(errors.New("give exactly one SEED"))
	}
	if *attempts <= 0 {
		return usageErr(fmt.Errorf("--attempts must be positive, got %d", *attempts))
	}
	t, err := tflags.resolve(suite, pos[0], nil)
	if err != nil {
		return usageErr(err)
	}
	if needsBugBuild(suite, t.bugs) {
		return runBugBuild(append([]string{"shrink"}, args...), stdout, stderr)
	}
	if *out == "" {
		*out = fmt.Sprintf("frameproof-shrunk-%s-%s-%d.json", t.scenario.Name, t.backend, t.seed)
	}
	if err := checkOutputFile("--out", *out); err != nil {
		return ioError(stderr, "shrink", "%v", err)
	}

	dir, err := os.MkdirTemp("", "frameproof-shrink-*")
	if err != nil {
		return ioError(stderr, "shrink", "temporary directory: %v", unwrapPath(err))
	}
	defer os.RemoveAll(dir)
	res := campaign.ShrinkSeed(t.scenario, campaign.RunOptions{Backend: t.backend, Bugs: t.bugs, TempDir: dir}, t.seed, *attempts)
	fmt.Fprintf(stdout, "shrink: %s\n", t.what())
	if !res.First.Failed {
		fmt.Fprintln(stdout, "verdict: PASS (nothing to shrink)")
		return exitPass
	}
	o, final := res.First, res.Final
	fmt.Fprintf(stdout, "verdict: FAIL (%s): %s\n", o.Kind, o.Message)
	if !res.Reproduced() {
		// The shrinker only keeps failing candidates; this is a determinism bug.
		fmt.Fprintf(stdout, "NONDETERMINISTIC: the shrunk tape no longer fails with %s\n", o.Kind)
		return exitFail
	}
	tf := tapeFile{Schema: TapeSchema, Scenario: t.scenario.Name, Backend: t.backend, Bugs: t.bugs,
		Seed: t.seed, Kind: final.Kind, Message: final.Message, OriginalLen: len(res.Tape), Tape: res.FinalSource.Relabelled()}
	if err := writeTapeFile(*out, tf); err != nil {
		// The tape is what shrink is for: not writing it is an I/O error.
		return ioError(stderr, "shrink", "%v", err)
	}
	fmt.Fprintf(stdout, "shrunk: %d -> %d choices (%s)\n", len(res.Tape), len(res.Shrunk), shrinkNote(res.Stats))
	fmt.Fprintf(stdout, "shrunk failure: %s\n", final.Message)
	fmt.Fprintf(stdout, "tape: %s\n", *out)
	fmt.Fprintf(stdout, "replay: %s\n", t.tapeCommand(*out))
	return exitFail
}

// tapeCommand is the one line that replays the target's shrunk tape, saved at path.
func (t target) tapeCommand(path string) string {
	return campaign.ReproTape(path, t.scenario.Name, t.backend, strings.Join(t.bugs, ","))
}

func shrinkNote(s shrink.Stats) string {
	note := fmt.Sprintf("%d replays, %d accepted", s.Attempts, s.Accepted)
	if s.Exhausted {
		note += ", budget exhausted"
	}
	return note
}
