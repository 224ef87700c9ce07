package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/frameproof/frameproof/sim/campaign"
	"github.com/frameproof/frameproof/sim/choice"
)

// Tests of the sim, repro and shrink plumbing on the fake suite.

func TestSimFakePassesWithJSONAndJUnit(t *testing.T) {
	withSuite(t, fakeSuite{})
	junit := filepath.Join(t.TempDir(), "sim.xml")
	code, stdout, stderr := run("sim", "--scenario", "coin", "--seeds", "40", "--json", "--junit", junit, "-q")
	require.Equal(t, exitPass, code, stderr)
	r := decodeReport(t, stdout)
	assert.Equal(t, "pass", r.Verdict)
	assert.Equal(t, "sim", r.Command)
	require.NotNil(t, r.Sim)
	assert.Equal(t, "pass", r.Sim.Verdict)
	assert.Equal(t, []string{"coin"}, r.Sim.Scenarios)
	assert.Equal(t, []string{"memory", "jsonl", "sqlite"}, r.Sim.Backends)
	require.Len(t, r.Sim.Cells, 3)
	for _, c := range r.Sim.Cells {
		assert.Equal(t, 40, c.Runs)
		assert.Equal(t, 40, c.Passed)
		assert.Equal(t, "pass", c.Verdict)
		assert.Positive(t, c.Steps)
	}
	require.Len(t, r.Sim.Coverage, 1)
	cov := r.Sim.Coverage[0]
	assert.Equal(t, "R1", cov.Row)
	assert.True(t, cov.Covered)
	assert.Equal(t, 120, cov.Orders[0].Runs+cov.Orders[1].Runs, "every run takes one order of R1")
	assert.Equal(t, 120, r.Sim.Throughput.Runs)
	assert.Empty(t, r.Sim.Failures)
	assert.Equal(t, 3, r.Tests)
	assert.Equal(t, 3, r.Passed)

	x := decodeJUnit(t, junit)
	assert.Equal(t, 3, x.Tests)
	assert.Zero(t, x.Failures)
	require.Len(t, x.Suites, 1)
	assert.Equal(t, "frameproof.sim.coin", x.Suites[0].Name)
	var names []string
	for _, c := range x.Suites[0].Cases {
		names = append(names, c.Name)
		assert.Nil(t, c.Failure)
	}
	assert.Equal(t, []string{"memory", "jsonl", "sqlite"}, names)
}

func TestSimFakeSameResultsWithAnyJobCount(t *testing.T) {
	withSuite(t, fakeSuite{})
	_, one, _ := run("sim", "--scenario", "coin", "--seeds", "30", "--json", "-q", "--jobs", "1")
	_, two, _ := run("sim", "--scenario", "coin", "--seeds", "30", "--json", "-q", "--jobs", "3")
	a, b := decodeReport(t, one), decodeReport(t, two)
	assert.Equal(t, a.Sim.Coverage, b.Sim.Coverage)
	for i := range a.Sim.Cells {
		assert.Equal(t, a.Sim.Cells[i].Steps, b.Sim.Cells[i].Steps)
	}
}

var reproLine = regexp.MustCompile(`(?m)^  repro: (frameproof repro (\d+) --scenario (\S+) --backend (\S+)(?: --bug (\S+))?)$`)

func TestSimFakeBugFailsWithReproductionAndShrinks(t *testing.T) {
	withSuite(t, fakeSuite{})
	dir := t.TempDir()
	junit := filepath.Join(dir, "sim.xml")
	code, stdout, stderr := run("sim", "--scenario", "coin", "--seeds", "20", "--bug", "big-value", "--junit", junit,
		"--report-dir", filepath.Join(dir, "reports"))
	require.Equal(t, exitFail, code, stdout+stderr)
	m := reproLine.FindAllStringSubmatch(stdout, -1)
	require.NotEmpty(t, m, stdout)
	assert.Len(t, m, 1, "one group: every failure is the bug's \"value N >= 7 at op N\"")
	assert.Contains(t, stdout, "failures: 6 seeds, 1 distinct")
	assert.Contains(t, stdout, "  6 seeds: coin/memory x2, coin/jsonl x2, coin/sqlite x2\n", "--max-failures 2 per cell over 3 backends")
	assert.Contains(t, stdout, "and 15 report files for the other seeds")
	assert.Equal(t, "big-value", m[0][5])
	assert.Regexp(t, `shrunk tape: \d+ -> [1-9]\d* choices`, stdout)
	assert.Contains(t, stdout, "verdict: FAIL")
	// The shrunk tape of the first failure is minimal: the bug needs one big
	// value, so at most "ops" + that value's position remain.
	x := decodeJUnit(t, junit)
	assert.Equal(t, 3, x.Failures)
	require.NotNil(t, x.Suites[0].Cases[0].Failure)
	assert.Contains(t, x.Suites[0].Cases[0].Failure.Text, "repro: frameproof repro ")
	assert.Regexp(t, `\nfiles: \S+\.tape\.json \S+\.jsonl \S+\.html`, x.Suites[0].Cases[0].Failure.Text, "JUnit names each failure's files")
	reports, err := os.ReadDir(filepath.Join(dir, "reports"))
	require.NoError(t, err)
	assert.Len(t, reports, 18, "tape, trace and html for each of 6 failures")

	// The printed command reproduces the failure.
	args := strings.Fields(m[0][1])[1:]
	tr, html := filepath.Join(dir, "t.jsonl"), filepath.Join(dir, "r.html")
	code, out, errs := run(append(args, "--trace", tr, "--html", html)...)
	require.Equal(t, exitFail, code, out+errs)
	assert.Contains(t, out, "verdict: FAIL (invariant): value ")
	assert.Contains(t, out, "(two runs agree)")
	assert.Contains(t, out, "faults (1):")
	page, err := os.ReadFile(html)
	require.NoError(t, err)
	assert.True(t, strings.Contains(string(page), "porcupine result: Ok"), "porcupine result: Ok")
	assert.Contains(t, string(page), "Why Ok with a FAIL verdict: porcupine only checks", "the page explains Ok beside FAIL")
	assert.True(t, strings.Contains(string(page), "<iframe"), "<iframe")
	assert.True(t, strings.Contains(string(page), "big value"), "big value")
	assert.True(t, strings.Contains(string(page), "t.jsonl"), "t.jsonl")
	traceData, err := os.ReadFile(tr)
	require.NoError(t, err)
	assert.Contains(t, string(traceData), `"act":"draw"`)

	// shrink writes a tape that repro --tape replays to the same failure.
	tape := filepath.Join(dir, "tape.json")
	code, out, errs = run(append([]string{"shrink"}, append(args[1:], "--out", tape)...)...)
	require.Equal(t, exitFail, code, out+errs)
	assert.Regexp(t, `shrunk: \d+ -> \d+ choices`, out)
	assert.Contains(t, out, "replay: frameproof repro --tape "+tape+" --scenario coin --backend "+m[0][4]+" --bug big-value")
	tf, _, err := readTapeFile(tape, defaultMaxTape)
	require.NoError(t, err)
	assert.Equal(t, campaign.KindInvariant, tf.Kind)
	assert.Less(t, len(tf.Tape), tf.OriginalLen)
	code, out, errs = run("repro", "--tape", tape, "--trace", filepath.Join(dir, "t2.jsonl"), "--html", filepath.Join(dir, "r2.html"))
	require.Equal(t, exitFail, code, out+errs)
	assert.Contains(t, out, "verdict: FAIL (invariant)")
	page, err = os.ReadFile(filepath.Join(dir, "r2.html"))
	require.NoError(t, err)
	assert.Contains(t, string(page), "frameproof repro --tape "+tape+" --scenario coin", "the report names the tape it replayed")
}

func TestSimFakeInconclusiveWhenARaceOrderIsMissed(t *testing.T) {
	withSuite(t, fakeSuite{})
	code, stdout, stderr := run("sim", "--scenario", "rare", "--seeds", "30", "-q")
	require.Equal(t, exitInconclusive, code, stdout+stderr)
	assert.Contains(t, stdout, "MISSING")
	assert.Contains(t, stdout, `no run took R2 "rare"`)
	assert.Contains(t, stdout, "verdict: INCONCLUSIVE")

	// Too small a budget: one run per cell cannot take both orders of R1.
	code, stdout, _ = run("sim", "--scenario", "coin", "--backend", "memory", "--budget", "1", "--json", "-q")
	require.Equal(t, exitInconclusive, code)
	r := decodeReport(t, stdout)
	assert.Equal(t, "inconclusive", r.Verdict)
	assert.Equal(t, 1, r.Sim.Cells[0].Runs)
	assert.Equal(t, "steps", r.Sim.Cells[0].StoppedBy)
	assert.False(t, r.Sim.Coverage[0].Covered)

	// A budget that runs out after coverage is reached is a pass.
	code, _, _ = run("sim", "--scenario", "coin", "--backend", "memory", "--budget", "400", "--seeds", "1000", "-q")
	assert.Equal(t, exitPass, code)
}

// A budget bounds a campaign whatever its seed count (issue 29 class 4):
// 2^63-1 seeds per cell and a step budget return after a handful of runs,
// with the verdict a campaign cut short by its budget always had (pass once
// coverage is reached), and the report says how many seeds ran of those
// planned.
func TestSimBudgetBoundsAnEnormousSeedCount(t *testing.T) {
	withSuite(t, fakeSuite{})
	done := make(chan struct{})
	var code int
	var stdout, stderr string
	go func() {
		defer close(done)
		code, stdout, stderr = run("sim", "--scenario", "coin", "--backend", "memory", "--budget", "400",
			"--seeds", "9223372036854775807", "--shard", "1/3", "-q")
	}()
	select {
	case <-done:
	case <-time.After(time.Minute): // a hang detector, not a speed bound
		t.Fatal("sim --budget 400 --seeds 2^63-1 did not return")
	}
	require.Equal(t, exitPass, code, stdout+stderr)
	assert.Regexp(t, `PASS \(\d+/3074457345618258602 seeds, steps budget\)`, stdout)
	assert.Regexp(t, `seeds: \d+ of 3074457345618258602 planned ran \(stopped by steps budget\)`, stdout)
}

func TestSimUsageErrors(t *testing.T) {
	withSuite(t, fakeSuite{})
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--no-such-flag"}, "flag provided but not defined"},
		{[]string{"--seeds", "0"}, "--seeds must be positive"},
		{[]string{"--budget", "soon"}, "want a step count"},
		{[]string{"--budget", "-5s"}, "--budget must be positive"},
		{[]string{"--shard", "4/4"}, "--shard"},
		{[]string{"--scenario", "nope"}, `unknown scenario "nope" (valid: coin, rare)`},
		{[]string{"--backend", "mongo"}, `unknown backend "mongo" (valid: memory, jsonl, sqlite)`},
		{[]string{"--bug", "nope"}, `unknown bug "nope" (valid: big-value, flaky)`},
		{[]string{"extra"}, `unexpected argument "extra"`},
		{[]string{"--scenario", " , "}, "frameproof sim: --scenario: no scenario given\n"},
		{[]string{"--backend", ","}, "frameproof sim: --backend: no backend given\n"},
	} {
		code, _, stderr := run(append([]string{"sim"}, tc.args...)...)
		assert.Equal(t, exitUsage, code, tc.args)
		assert.Contains(t, stderr, tc.want, tc.args)
		assert.Equal(t, 1, strings.Count(stderr, "\n"), "one line: %q", stderr)
	}
	code, stdout, _ := run("sim", "--help")
	assert.Equal(t, exitPass, code)
	for _, want := range []string{"usage: frameproof sim", "injected bugs", "big-value", "flaky", "scenarios:", "coin", "rare", "memory, jsonl, sqlite"} {
		assert.Contains(t, stdout, want)
	}

	for _, args := range [][]string{
		{"repro"},
		{"repro", "x1", "--scenario", "coin", "--backend", "memory"},
		{"repro", "1", "--backend", "memory"},
		{"repro", "1", "--scenario", "coin"},
		{"repro", "1", "--scenario", "coin", "--backend", "tape"},
		{"repro", "1", "2", "--scenario", "coin", "--backend", "memory"},
		{"repro", "--tape", "/no/such/file"},
		{"shrink", "--scenario", "coin", "--backend", "memory"},
		{"shrink", "1", "--scenario", "coin", "--backend", "memory", "--bug", "nope"},
	} {
		code, _, stderr := run(args...)
		assert.Equal(t, exitUsage, code, args)
		assert.Regexp(t, "^frameproof "+args[0]+": [^\n]+\n$", stderr, args)
	}
}

func TestReproDetectsNondeterminism(t *testing.T) {
	withSuite(t, fakeSuite{})
	dir := t.TempDir()
	code, out, errs := run("repro", "3", "--scenario", "coin", "--backend", "memory", "--bug", "flaky",
		"--trace", filepath.Join(dir, "t.jsonl"), "--html", filepath.Join(dir, "r.html"))
	require.Equal(t, exitFail, code, out+errs)
	assert.Contains(t, out, "NONDETERMINISTIC")
	page, err := os.ReadFile(filepath.Join(dir, "r.html"))
	require.NoError(t, err)
	assert.True(t, strings.Contains(string(page), "DIFFERS"), "DIFFERS")

	// Without the bug the same seed passes and both runs agree.
	code, out, _ = run("repro", "3", "--scenario", "coin", "--backend", "memory",
		"--trace", "-", "--html", filepath.Join(dir, "r.html"))
	require.Equal(t, exitPass, code)
	assert.Contains(t, out, `"act":"draw"`, "--trace - prints the trace on stdout")
}

func TestSimFakeNondeterminismIsAFailure(t *testing.T) {
	withSuite(t, fakeSuite{})
	// big-value makes seeds fail; flaky makes their re-runs disagree.
	code, stdout, _ := run("sim", "--scenario", "coin", "--backend", "memory", "--seeds", "20",
		"--bug", "big-value,flaky", "--json", "-q")
	require.Equal(t, exitFail, code)
	r := decodeReport(t, stdout)
	require.NotEmpty(t, r.Sim.Failures)
	assert.Equal(t, campaign.KindNondeterminism, r.Sim.Failures[0].Kind)
}

func TestShrinkPassingSeed(t *testing.T) {
	withSuite(t, fakeSuite{})
	code, out, _ := run("shrink", "1", "--scenario", "coin", "--backend", "memory", "--out", filepath.Join(t.TempDir(), "x.json"))
	assert.Equal(t, exitPass, code)
	assert.Contains(t, out, "nothing to shrink")
}

// An unwritable --junit path is found before the campaign starts (exit 4,
// nothing run); a JUnit file that fails after the campaign does not hide its
// result: a failure keeps exit 1, anything else becomes exit 4.
func TestSimJUnitWriteError(t *testing.T) {
	withSuite(t, fakeSuite{})
	junit := filepath.Join(t.TempDir(), "no-such-dir", "sim.xml")
	code, stdout, stderr := run("sim", "--scenario", "coin", "--backend", "memory", "--seeds", "20",
		"--bug", "big-value", "--junit", junit, "-q")
	assert.Equal(t, exitIO, code, stdout+stderr)
	assert.Empty(t, stdout, "no campaign ran")
	assert.Contains(t, stderr, "--junit "+junit)

	var errb strings.Builder
	rep := &Report{Command: "sim"}
	assert.Equal(t, exitFail, rep.writeJUnitKeeping(junit, "frameproof sim", exitFail, &errb))
	assert.Equal(t, exitIO, rep.writeJUnitKeeping(junit, "frameproof sim", exitPass, &errb))
	assert.Equal(t, exitIO, rep.writeJUnitKeeping(junit, "frameproof sim", exitInconclusive, &errb))
	assert.Contains(t, errb.String(), "--junit")
}

// seedLog is a suite whose scenarios record every seed they are run with,
// per scenario x backend (cells run in parallel, hence the lock).
type seedLog struct {
	fakeSuite
	mu    sync.Mutex
	seeds map[string][]uint64
}

func (s *seedLog) Scenarios() []campaign.Scenario {
	var out []campaign.Scenario
	for _, sc := range s.fakeSuite.Scenarios() {
		inner, name := sc.Run, sc.Name
		sc.Run = func(src choice.Source, o campaign.RunOptions) campaign.Outcome {
			s.mu.Lock()
			key := name + "/" + o.Backend
			s.seeds[key] = append(s.seeds[key], src.(*choice.Seeded).Seed())
			s.mu.Unlock()
			return inner(src, o)
		}
		out = append(out, sc)
	}
	return out
}

// The shards of a campaign partition its seeds exactly: over all shards,
// every cell runs every seed once, none twice, none outside the range.
func TestSimShardsPartitionTheSeeds(t *testing.T) {
	for _, tc := range []struct {
		base, seeds, shards int
	}{{1, 23, 4}, {100, 7, 3}, {5, 2, 3}, {0, 10, 1}} {
		log := &seedLog{seeds: map[string][]uint64{}}
		withSuite(t, log)
		for i := range tc.shards {
			code, stdout, stderr := run("sim", "--seed", strconv.Itoa(tc.base), "--seeds", strconv.Itoa(tc.seeds),
				"--shard", fmt.Sprintf("%d/%d", i, tc.shards), "--jobs", "2", "--json", "-q")
			require.NotEqual(t, exitUsage, code, stderr)
			r := decodeReport(t, stdout)
			planned := 0
			for _, c := range r.Sim.Cells {
				planned += c.Planned
			}
			assert.Equal(t, r.Sim.Throughput.Runs, planned, "shard %d/%d runs what it plans", i, tc.shards)
		}
		var want []uint64
		for s := range tc.seeds {
			want = append(want, uint64(tc.base+s))
		}
		require.Len(t, log.seeds, 2*3, "every scenario x backend cell ran")
		for cell, got := range log.seeds {
			slices.Sort(got)
			assert.Equal(t, want, got, "%+v cell %s", tc, cell)
		}
	}
}

func TestFailuresGroupByKindAndMessage(t *testing.T) {
	fs := []SimFailure{
		{Scenario: "a", Backend: "memory", Seed: 3, Kind: campaign.KindInvariant, Message: "value 8 at op 3\ndetail", Repro: "r3"},
		{Scenario: "a", Backend: "jsonl", Seed: 4, Kind: campaign.KindLiveness, Message: "stuck after 100 steps", Repro: "r4"},
		{Scenario: "b", Backend: "memory", Seed: 9, Kind: campaign.KindInvariant, Message: "value 9 at op 12", Repro: "r9"},
		{Scenario: "a", Backend: "memory", Seed: 11, Kind: campaign.KindInvariant, Message: "value 7 at op 1", Repro: "r11"},
	}
	g := campaign.GroupFailures(fs)
	require.Len(t, g, 2)
	assert.Equal(t, "value 8 at op 3", g[0].Message)
	assert.Len(t, g[0].Members, 3)
	assert.Equal(t, campaign.KindLiveness, g[1].Kind)
	var b strings.Builder
	printFailureGroups(&b, fs)
	assert.Contains(t, b.String(), "failures: 4 seeds, 2 distinct")
	assert.Contains(t, b.String(), "FAIL invariant: value 8 at op 3\n  3 seeds: a/memory x2, b/memory x1\n  first: a/memory seed 3\n  repro: r3\n")
	assert.Contains(t, b.String(), "FAIL liveness: stuck after 100 steps\n  1 seeds: a/jsonl x1\n")
}

// Shrunk tapes land in ./frameproof-failures by default, created only by a
// failing campaign, named in the text and JSON output, and replayable;
// --tape-dir moves them and --tape-dir ” turns them off.
func TestSimShrunkTapesByDefault(t *testing.T) {
	withSuite(t, fakeSuite{})
	saved := defaultTapeDir
	defaultTapeDir = "frameproof-failures" // the shipped default, relative to the working directory
	t.Cleanup(func() { defaultTapeDir = saved })
	t.Chdir(t.TempDir())

	code, out, errs := run("sim", "--scenario", "coin", "--backend", "memory", "--seeds", "20", "-q")
	require.Equal(t, exitPass, code, out+errs)
	_, err := os.Stat("frameproof-failures")
	assert.ErrorIs(t, err, os.ErrNotExist, "a passing campaign creates no directory")

	code, out, errs = run("sim", "--scenario", "coin", "--backend", "memory", "--seeds", "20", "--bug", "big-value", "-q")
	require.Equal(t, exitFail, code, out+errs)
	tapes, err := filepath.Glob(filepath.Join("frameproof-failures", "coin-memory-*.tape.json"))
	require.NoError(t, err)
	require.Len(t, tapes, 2, "--max-failures 2")
	assert.Contains(t, out, "  wrote "+tapes[0]+"\n")
	tf, _, err := readTapeFile(tapes[0], defaultMaxTape)
	require.NoError(t, err)
	assert.Equal(t, campaign.KindInvariant, tf.Kind)
	code, out, errs = run("repro", "--tape", tapes[0])
	assert.Equal(t, exitFail, code, out+errs)
	assert.Contains(t, out, "verdict: FAIL (invariant)")

	elsewhere := filepath.Join(t.TempDir(), "deep", "tapes")
	code, out, errs = run("sim", "--scenario", "coin", "--backend", "memory", "--seeds", "20", "--bug", "big-value", "-q",
		"--json", "--tape-dir", elsewhere)
	require.Equal(t, exitFail, code, out+errs)
	rep := decodeReport(t, out)
	require.NotEmpty(t, rep.Sim.Failures)
	for _, f := range rep.Sim.Failures {
		require.Len(t, f.Files, 1)
		assert.FileExists(t, f.Files[0])
		assert.True(t, strings.HasPrefix(f.Files[0], elsewhere), f.Files[0])
	}

	require.NoError(t, os.RemoveAll("frameproof-failures"))
	code, out, errs = run("sim", "--scenario", "coin", "--backend", "memory", "--seeds", "20", "--bug", "big-value", "-q",
		"--json", "--tape-dir", "")
	require.Equal(t, exitFail, code, out+errs)
	for _, f := range decodeReport(t, out).Sim.Failures {
		assert.Empty(t, f.Files)
	}
	_, err = os.Stat("frameproof-failures")
	assert.ErrorIs(t, err, os.ErrNotExist, "--tape-dir '' writes no tapes")
}

// Every reproduction line a campaign reports (the JSON report lists one per
// failing seed, built by campaign.Repro) runs as printed through the CLI's
// own entry and fails again with the seed's kind; the same holds for a
// line built by campaign.Campaign alone, the one library tests print.
func TestEveryReportedReproLineRuns(t *testing.T) {
	withSuite(t, fakeSuite{})
	code, stdout, stderr := run("sim", "--scenario", "coin", "--seeds", "20", "--bug", "big-value", "--json", "--tape-dir", "", "-q")
	require.Equal(t, exitFail, code, stderr)
	failures := decodeReport(t, stdout).Sim.Failures
	require.NotEmpty(t, failures)
	lines := map[string]campaign.FailureKind{} // line -> kind
	for _, f := range failures {
		lines[f.Repro] = f.Kind
	}
	coin := fakeSuite{}.Scenarios()[0]
	opts := campaign.RunOptions{Backend: "jsonl", Bugs: []string{"big-value"}, TempDir: t.TempDir()}
	sum, err := campaign.Campaign{Scenario: coin.Name, Backend: opts.Backend, Bug: "big-value", Seeds: 20, MaxFailures: 1,
		Run: func(src choice.Source) campaign.Result {
			require.NoError(t, campaign.FreshDir(opts.TempDir))
			o := coin.Run(src, opts)
			return campaign.Result{Failed: o.Failed, Kind: o.Kind, Message: o.Message, TraceHash: o.TraceHash}
		}}.Execute()
	require.NoError(t, err)
	require.Len(t, sum.Failures, 1)
	lines[sum.Failures[0].Repro] = sum.Failures[0].Kind

	t.Chdir(t.TempDir()) // repro writes its trace and HTML report into the working directory
	for line, kind := range lines {
		args := strings.Fields(line)
		require.Equal(t, "frameproof", args[0], line)
		code, out, errs := run(args[1:]...)
		assert.Equal(t, exitFail, code, "%s\n%s%s", line, out, errs)
		assert.Contains(t, out, "verdict: FAIL ("+string(kind)+")", line)
	}
}
