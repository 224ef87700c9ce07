package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"syscall"
	"testing"

	"github.com/frameproof/frameproof/props/peer"
	"github.com/frameproof/frameproof/props/peer/procgroup"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/frameproof/frameproof/props/bench"
	"github.com/frameproof/frameproof/sim/campaign"
)

// The CLI's edges, for every registered subcommand: a full disk, an
// unwritable artifact, an extra argument, a bad flag value and --help.

// edgeCase is how one subcommand is driven at its edges.
type edgeCase struct {
	ok       []string   // a fast valid invocation
	stdin    string     // its stdin (a file under corpus/examples, or "")
	okCode   int        // the exit code ok gives with a working stdout
	helps    [][]string // invocations that must print help and exit 0
	extra    []string   // ok plus an argument it does not take
	badValue [][]string // flags with values they do not accept
	// artifacts are invocations whose output file or directory cannot be
	// written (nil: the command writes no artifact).
	artifacts [][]string
	// peer is the npm peer ok runs ("" none): installed first, or the ok
	// and full-disk edges skip with the reason (the artifact, usage and
	// help edges run before anything needs it).
	peer peer.Name
}

// edgeCases covers every subcommand; TestEdgeCasesCoverEveryCommand
// fails when a registered command has no row. dir is a fresh directory for
// outputs; blocked is a path under a regular file (never creatable).
func edgeCases(dir, blocked string) map[string]edgeCase {
	out := func(name string) string { return filepath.Join(dir, name) }
	sim := []string{"sim", "--scenario", "coin", "--backend", "memory", "--seeds", "20", "-q"}
	repro := []string{"repro", "1", "--scenario", "coin", "--backend", "memory", "--trace", out("t.jsonl"), "--html", out("r.html")}
	shrink := []string{"shrink", "1", "--scenario", "coin", "--backend", "memory", "--out", out("tape.json")}
	corpusRun := []string{"corpus", "run", "--family", "jsonl"}
	conform := []string{"conform", "--self", "--ops", "parse"}
	fuzz := []string{"provider", "fuzz", "--wire", "anthropic-messages", "--adapter", "go", "--seeds", "1", "--save", "0"}
	mutate := []string{"mutate", "--root", "../../props/mutate/testdata/fixture", "--pkgs", "calc",
		"--budget", "1", "--killer", "go test -count=1 ./check"}
	return map[string]edgeCase{
		"mutate": {ok: mutate, extra: append(slices.Clone(mutate), "extra"),
			badValue: [][]string{{"mutate", "--budget", "-1"}, {"mutate", "--timeout", "soon"}}},
		"serve": {ok: []string{"serve", "store", "--backend", "memory"}, helps: [][]string{{"serve", "--help"}, {"serve", "store", "--help"}, {"serve", "repo", "--help"}},
			extra: []string{"serve", "store", "--backend", "memory", "extra"},
			badValue: [][]string{{"serve", "store", "--backend", "nope"}, {"serve", "store", "--backend", "memory", "--sync", "sometimes"}, {"serve", "nope"},
				// serve repo: its edges ride on serve's row (one row per registered command).
				{"serve", "repo", "--backend", "sqlite"}, {"serve", "repo", "--backend", "jsonl"},
				{"serve", "repo", "--backend", "memory", "--sync", "sometimes"}, {"serve", "repo", "--backend", "memory", "extra"}}},
		"version": {ok: []string{"version"}, extra: []string{"version", "extra"},
			badValue: [][]string{{"version", "--no-such-flag"}}},
		"encode": {ok: []string{"encode"}, stdin: "events.jsonl", extra: []string{"encode", "extra"},
			badValue: [][]string{{"encode", "--max-line", "0"}, {"encode", "--max-line", "many"}}},
		"reduce": {ok: []string{"reduce"}, stdin: "frames.jsonl", extra: []string{"reduce", "extra"},
			badValue: [][]string{{"reduce", "--max-line", "-1"}}},
		"project": {ok: []string{"project", "--wire", "anthropic"}, stdin: "transcript.jsonl",
			extra:    []string{"project", "--wire", "anthropic", "extra"},
			badValue: [][]string{{"project", "--wire", "nope"}, {"project", "--wire", "anthropic", "--microcompact", "-5"}, {"project", "--wire", "anthropic", "--max-input", "0"}}},
		"corpus": {ok: corpusRun, helps: [][]string{{"corpus", "--help"}, {"corpus", "run", "--help"}},
			extra:     append(slices.Clone(corpusRun), "extra"),
			badValue:  [][]string{{"corpus", "run", "--family", "nope"}, {"corpus", "run", "--json=maybe"}},
			artifacts: [][]string{append(slices.Clone(corpusRun), "--junit", filepath.Join(blocked, "c.xml"))}},
		"conform": {ok: conform, extra: append(slices.Clone(conform), "extra"),
			badValue:  [][]string{{"conform", "--self", "--timeout", "0"}, {"conform", "--self", "--timeout", "soon"}, {"conform", "--self", "--ops", "nope"}},
			artifacts: [][]string{append(slices.Clone(conform), "--junit", filepath.Join(blocked, "c.xml"))}},
		"sim": {ok: sim, extra: append(slices.Clone(sim), "extra"),
			badValue: [][]string{{"sim", "--seeds", "x"}, {"sim", "--seeds", "-1"}, {"sim", "--shard", "3/2"},
				{"sim", "--subject", "lane", "--seeds", "0"}, {"sim", "--subject", "lane@9"}},
			artifacts: [][]string{append(slices.Clone(sim), "--junit", filepath.Join(blocked, "s.xml")),
				append(slices.Clone(sim), "--report-dir", filepath.Join(blocked, "reports")),
				append(slices.Clone(sim), "--tape-dir", filepath.Join(blocked, "tapes"))}},
		"repro": {ok: repro, extra: append(slices.Clone(repro), "2"),
			badValue: [][]string{{"repro", "x", "--scenario", "coin", "--backend", "memory"}, {"repro", "1", "--scenario", "coin", "--backend", "memory", "--max-tape", "0"}},
			artifacts: [][]string{{"repro", "1", "--scenario", "coin", "--backend", "memory", "--trace", filepath.Join(blocked, "t.jsonl"), "--html", out("r.html")},
				{"repro", "1", "--scenario", "coin", "--backend", "memory", "--trace", out("t.jsonl"), "--html", filepath.Join(blocked, "r.html")}}},
		"shrink": {ok: shrink, extra: append(slices.Clone(shrink), "2"),
			badValue:  [][]string{{"shrink", "1", "--scenario", "coin", "--backend", "memory", "--attempts", "0"}},
			artifacts: [][]string{{"shrink", "1", "--scenario", "coin", "--backend", "memory", "--out", filepath.Join(blocked, "tape.json")}}},
		"provider": {ok: fuzz, helps: [][]string{{"provider", "--help"}, {"provider", "fuzz", "--help"}},
			extra:    append(slices.Clone(fuzz), "extra"),
			badValue: [][]string{{"provider", "fuzz", "--wire", "anthropic-messages", "--adapter", "go", "--save", "-1"}, {"provider", "fuzz", "--wire", "nope", "--adapter", "go"}, {"provider", "fuzz", "--wire", "anthropic-messages", "--adapter", "go", "--seeds", "0"}, {"provider", "fuzz", "--wire", "anthropic-messages", "--adapter", "go", "--corpus", blocked}}},
		"merge": {ok: []string{"merge", out("sim-0.json"), out("sim-1.json")},
			extra:     []string{"merge", out("sim-0.json"), out("sim-1.json"), out("sim-0.json")},
			badValue:  [][]string{{"merge", "--max-input", "0", out("sim-0.json")}, {"merge", "--json=2", out("sim-0.json")}},
			artifacts: [][]string{{"merge", "--junit", filepath.Join(blocked, "m.xml"), out("sim-0.json"), out("sim-1.json")}}},
		"recover": {ok: []string{"recover", out("session.jsonl")},
			extra:     []string{"recover", out("session.jsonl"), "extra"},
			badValue:  [][]string{{"recover", "--now", "soon", "x.jsonl"}, {"recover", "--max-input", "0", "x.jsonl"}, {"recover", "--max-input", "10", out("session.jsonl")}, {"recover", "--backup", "b", "x.jsonl"}, {"recover"}, {"recover", "--apply", "--backup", out("session.jsonl"), out("session.jsonl")}},
			artifacts: [][]string{{"recover", "--apply", "--backup", filepath.Join(blocked, "b.jsonl"), out("session.jsonl")}}},
		// the sweep runs node on the pinned pi-agent-core peer (installed on
		// first use): its last crash point of the text run only
		"pi-recovery-sweep": {ok: []string{"pi-recovery-sweep", "--runs", "text", "--every", "100"},
			extra:     []string{"pi-recovery-sweep", "extra"},
			badValue:  [][]string{{"pi-recovery-sweep", "--every", "0"}, {"pi-recovery-sweep", "--every", "x"}},
			artifacts: [][]string{{"pi-recovery-sweep", "--runs", "text", "--every", "100", "--corpus-out", filepath.Join(blocked, "c")}},
			peer:      peer.PiAgentCore},
		"bench": {ok: benchOK(), extra: []string{"bench", "extra"},
			badValue: [][]string{{"bench", "--quick=maybe"}, {"bench", "--family", "nope"}, {"bench", "--family", "campaign"},
				{"bench", "--base", "fp", "--family", "codec"}, {"bench", "--family", "campaign", "--base", "fp", "--pairs", "-1"}},
			artifacts: [][]string{append(benchOK(), "--write", filepath.Join(blocked, "BENCH.md"))}},
	}
}

// benchOK is the smallest bench run: no families registered, nothing to
// run; otherwise the default run's first family that needs neither node nor
// a peer, as a smoke run (the edges are the CLI's; the node families have
// their own tests in props/bench, which install the peer or skip).
func benchOK() []string {
	for _, f := range bench.Defaults() {
		if f.Peer == "" && !f.NeedsNode {
			return []string{"bench", "--quick", "--family", f.Name}
		}
	}
	return []string{"bench"}
}

// edgeDirs makes the output directory and a path that cannot be created,
// and puts the two shard reports merge reads and a session recover reads
// into the directory.
func edgeDirs(t *testing.T) (dir, blocked string) {
	dir = t.TempDir()
	file := filepath.Join(dir, "a-file")
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	for i := range 2 {
		sr := campaign.Report{BaseSeed: 1, Seeds: 10, Shard: fmt.Sprintf("%d/2", i), Scenarios: []string{"coin"}, Backends: []string{"memory"},
			Cells:      []campaign.Cell{{Scenario: "coin", Backend: "memory", Planned: 5, Runs: 5, Passed: 5, Verdict: "pass"}},
			Throughput: campaign.Throughput{Runs: 5, Jobs: 1},
			Coverage: []campaign.CoverageRow{{Row: "R1", Name: "fake race one", Covered: true,
				Orders: []campaign.OrderCount{{Order: "a-first", Runs: 2}, {Order: "b-first", Runs: 3}}}}}
		var b bytes.Buffer
		require.NoError(t, (&Report{Schema: ReportSchema, Command: "sim", Sim: &sr}).writeJSON(&b))
		require.NoError(t, os.WriteFile(filepath.Join(dir, fmt.Sprintf("sim-%d.json", i)), b.Bytes(), 0o644))
	}
	session, err := os.ReadFile(filepath.Join("..", "..", "corpus", "jsonl", "valid.jsonl"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "session.jsonl"), session, 0o644))
	return dir, filepath.Join(file, "sub")
}

func TestEdgeCasesCoverEveryCommand(t *testing.T) {
	cases := edgeCases(edgeDirs(t))
	for name := range commands {
		assert.Contains(t, cases, name, "subcommand %q has no row in edgeCases: add one", name)
	}
	for name := range cases {
		assert.Contains(t, commands, name, "edgeCases row %q names no subcommand", name)
	}
}

// runEdge runs args with stdin from corpus/examples and stdout into w.
func runEdge(t *testing.T, c edgeCase, args []string, w interface{ Write([]byte) (int, error) }) (int, string) {
	t.Helper()
	in := strings.NewReader("")
	if c.stdin != "" {
		data, err := os.ReadFile(filepath.Join("..", "..", "corpus", "examples", c.stdin))
		require.NoError(t, err)
		in = strings.NewReader(string(data))
	}
	var errb bytes.Buffer
	code := dispatch(args, in, w, &errb)
	return code, errb.String()
}

// fullDisk fails every write like a full disk.
type fullDisk struct{}

func (fullDisk) Write([]byte) (int, error) { return 0, syscall.ENOSPC }

func TestEveryCommandAtItsEdges(t *testing.T) {
	withSuite(t, fakeSuite{})
	dir, blocked := edgeDirs(t)
	cases := edgeCases(dir, blocked)
	names := make([]string, 0, len(cases))
	for name := range cases {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		c := cases[name]
		t.Run(name, func(t *testing.T) {
			t.Run("ok and full disk", func(t *testing.T) {
				if c.peer != "" {
					peer.Require(t, c.peer)
				}
				var out bytes.Buffer
				code, stderr := runEdge(t, c, c.ok, &out)
				require.Equal(t, c.okCode, code, "ok invocation %q: %s", c.ok, stderr)
				code, stderr = runEdge(t, c, c.ok, fullDisk{})
				if out.Len() == 0 {
					// Nothing to write (bench with no families): nothing lost.
					assert.Equal(t, c.okCode, code, stderr)
					return
				}
				assert.Equal(t, outputCode(c.okCode, syscall.ENOSPC), code, stderr)
				assert.Contains(t, stderr, "frameproof "+name+": writing output: no space left on device")
			})
			t.Run("unwritable artifact", func(t *testing.T) {
				for _, args := range c.artifacts {
					var out bytes.Buffer
					code, stderr := runEdge(t, c, args, &out)
					assert.Equal(t, exitIO, code, "%q: %s", args, stderr)
					assert.Contains(t, stderr, blocked, args)
					assert.Empty(t, out.String(), "%q: nothing runs before the artifact path is checked", args)
				}
			})
			t.Run("extra argument", func(t *testing.T) {
				code, stderr := runEdge(t, c, c.extra, &bytes.Buffer{})
				assert.Equal(t, exitUsage, code, stderr)
				assertOneLine(t, name, stderr)
			})
			t.Run("bad flag value", func(t *testing.T) {
				for _, args := range c.badValue {
					code, stderr := runEdge(t, c, args, &bytes.Buffer{})
					assert.Equal(t, exitUsage, code, "%q: %s", args, stderr)
					assertOneLine(t, name, stderr)
				}
			})
			t.Run("help", func(t *testing.T) {
				helps := c.helps
				if helps == nil {
					helps = [][]string{{name, "--help"}, {name, "-h"}}
				}
				for _, args := range helps {
					var out bytes.Buffer
					code, stderr := runEdge(t, c, args, &out)
					assert.Equal(t, exitPass, code, "%q: %s", args, stderr)
					assert.Contains(t, out.String()+stderr, "usage: frameproof "+name, args)
				}
			})
		})
	}
}

// assertOneLine checks a usage error: one line, named by its command, with
// no doubled package prefix.
func assertOneLine(t *testing.T, name, stderr string) {
	t.Helper()
	assert.Regexp(t, `^frameproof `+name+`[a-z ]*: [^\n]+\n$`, stderr)
	for _, pkg := range []string{"provider", "corpus", "peer", "replay", "campaign", "sim"} {
		assert.NotContains(t, stderr, ": "+pkg+": "+pkg+": ")
		assert.NotContains(t, stderr, "frameproof "+pkg+": "+pkg+": ")
	}
}

// TestMain lets the test binary act as frameproof itself (see
// TestDevFullThroughTheBinary): with FRAMEPROOF_AS_CLI set it runs the CLI
// on the fake suite instead of the tests.
func TestMain(m *testing.M) {
	if os.Getenv("FRAMEPROOF_AS_CLI") == "fake-suite" {
		defaultTapeDir = "" // children are judged by exit codes; no tapes in the source tree
		activeSuite = fakeSuite{}
		if path := os.Getenv("FRAMEPROOF_TEST_READY"); path != "" {
			activeSuite = &readySuite{path: path}
		}
		os.Exit(dispatch(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	// Failing campaigns would leave their tapes in the package directory.
	tapes, err := os.MkdirTemp("", "frameproof-test-tapes-*")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defaultTapeDir = filepath.Join(tapes, "frameproof-failures")
	code := m.Run()
	os.RemoveAll(tapes)
	os.Exit(code)
}

// The same full-disk check through a real process writing to /dev/full,
// as a CI job's redirected stdout would fail.
func TestDevFullThroughTheBinary(t *testing.T) {
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skip("no /dev/full on this system")
	}
	defer full.Close()
	exe, err := os.Executable()
	require.NoError(t, err)
	dir, blocked := edgeDirs(t)
	for name, c := range edgeCases(dir, blocked) {
		if name == "bench" && len(bench.Defaults()) == 0 {
			continue // writes nothing without registered families
		}
		t.Run(name, func(t *testing.T) {
			if c.peer != "" {
				peer.Require(t, c.peer)
			}
			cmd := procgroup.CommandContext(t.Context(), exe, c.ok...)
			cmd.Env = append(os.Environ(), "FRAMEPROOF_AS_CLI=fake-suite")
			cmd.Stdout = full
			var errb bytes.Buffer
			cmd.Stderr = &errb
			if c.stdin != "" {
				f, err := os.Open(filepath.Join("..", "..", "corpus", "examples", c.stdin))
				require.NoError(t, err)
				defer f.Close()
				cmd.Stdin = f
			}
			err := cmd.Run()
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			} else {
				require.NoError(t, err)
			}
			assert.Equal(t, outputCode(c.okCode, syscall.ENOSPC), code, errb.String())
			assert.Contains(t, errb.String(), "no space left on device")
		})
	}
}
