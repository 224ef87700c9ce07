package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/frameproof/frameproof/impl/pi"
	impl "github.com/frameproof/frameproof/impl/provider"
	"github.com/frameproof/frameproof/props/peer"
	"github.com/frameproof/frameproof/props/provider"
)

func init() {
	register("provider", "fuzz streaming provider adapters (provider fuzz --wire W ...)", runProvider)
}

const providerUsage = "usage: frameproof provider fuzz --wire W (--adapter go | --exec CMD) [--seeds N] [--seed S] [--bug B] [--codec=false] [--peer] [--json] [--corpus DIR] [--save N] [--timeout D]"

const providerWho = "provider fuzz"

// fuzzConfig is a parsed `provider fuzz` command line.
type fuzzConfig struct {
	wire        impl.Wire
	execCmd     string   // "" runs the Go adapter
	argv        []string // execCmd split by commandWords, conform's parser
	bug         impl.Bug
	seed, seeds int
	asJSON      bool
	corpusDir   string // "" saves nothing (also with --save 0)
	maxSaved    int
	codec, peer bool
	timeout     time.Duration
}

func runProvider(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 && isHelpArg(args[0]) {
		fmt.Fprintln(stdout, providerUsage)
		printExits(stdout, providerWho)
		return exitPass
	}
	if len(args) == 0 || args[0] != "fuzz" {
		fmt.Fprintln(stderr, providerUsage)
		return exitUsage
	}
	cfg, code := parseFuzzFlags(args[1:], stdout, stderr)
	if code >= 0 {
		return code
	}
	if err := checkOutputDir("--corpus", cfg.corpusDir); err != nil {
		return ioError(stderr, providerWho, "%v", err)
	}
	// SIGINT or SIGTERM kills the adapter's and the peer's process groups
	// (where a terminal's Ctrl-C does not reach them), stops the campaign
	// before its next seed and reports it interrupted.
	ctx, stopSignals := interruptContext()
	defer stopSignals()
	interrupted := func(sum provider.FuzzSummary) int {
		sum.Interrupted = true
		fmt.Fprintf(stderr, "frameproof provider fuzz: interrupted after %d of %d streams; the adapter's process group was killed\n", sum.Streams, cfg.seeds)
		printFuzzSummary(stdout, sum, cfg)
		if sum.Failed > 0 {
			return exitFail
		}
		return exitCode(classInterrupted)
	}
	subject, command, closeSubject, err := cfg.startSubject(ctx)
	if err != nil && ctx.Err() != nil {
		return interrupted(provider.FuzzSummary{Wire: string(cfg.wire), Subject: "exec", Verdicts: map[string]int{}})
	}
	if err != nil {
		return envError(stderr, providerWho, "%v", err)
	}
	defer closeSubject()
	opts := provider.FuzzOptions{Wire: cfg.wire, Subject: subject, Seed: cfg.seed, Seeds: cfg.seeds,
		Run: provider.RunOptions{NoCodec: !cfg.codec}, CorpusDir: cfg.corpusDir, MaxSaved: cfg.maxSaved,
		SaveError: func(err error) {
			fmt.Fprintf(stderr, "frameproof provider fuzz: --corpus: %s\n", trimPrefix(err, "provider"))
		},
		Stop: func() bool { return ctx.Err() != nil }}
	if cfg.peer {
		p, err := peer.StartContext(ctx)
		if err != nil && ctx.Err() != nil {
			return interrupted(provider.FuzzSummary{Wire: string(cfg.wire), Subject: subject.Name(), Verdicts: map[string]int{}})
		}
		if err != nil {
			return envError(stderr, providerWho, "--peer: %s%s", trimPrefix(err, "peer"), peerHint)
		}
		defer func() { _ = p.Close() }()
		opts.Run.Peer = p
		command += " --peer"
	}
	if !cfg.codec {
		command += " --codec=false"
	}
	opts.Command = "frameproof provider fuzz --wire " + string(cfg.wire) + " " + command
	tty := isTTY(stderr)
	if tty {
		opts.Progress = func(done, failed int) {
			fmt.Fprintf(stderr, "\r%s: %d/%d streams, %d failed", cfg.wire, done, cfg.seeds, failed)
		}
	}
	sum, err := provider.Fuzz(opts)
	if ctx.Err() != nil {
		if tty {
			fmt.Fprintln(stderr)
		}
		return interrupted(sum)
	}
	if fe := (*provider.FuzzError)(nil); errors.As(err, &fe) {
		fmt.Fprintf(stderr, "frameproof provider fuzz: seed %d: %s\n", fe.Seed, trimPrefix(fe.Err, "provider"))
		return exitFail
	}
	if tty {
		fmt.Fprintln(stderr)
	}
	printFuzzSummary(stdout, sum, cfg)
	if sum.Failed > 0 {
		return exitFail
	}
	return outputCode(exitPass, sum.SaveErr)
}

// parseFuzzFlags returns the config, or an exit code >= 0 to stop with.
func parseFuzzFlags(args []string, stdout, stderr io.Writer) (fuzzConfig, int) {
	fs := flag.NewFlagSet(providerWho, flag.ContinueOnError)
	wireName := fs.String("wire", "", strings.Join(pi.WireAPIs(), " | ")+" (or a short name)")
	adapter := fs.String("adapter", "", "go: the reference Go adapter")
	execCmd := fs.String("exec", "", "external adapter command (JSONL protocol); \"pi-ai\" runs pi-ai 1.0.3's providers")
	seeds := fs.Int("seeds", 100, "number of streams (seeds 0..N-1 from --seed)")
	first := fs.Int("seed", 0, "first seed")
	bugName := fs.String("bug", "none", "seeded Go adapter bug")
	asJSON := fs.Bool("json", false, "print the summary as JSON")
	corpusDir := fs.String("corpus", "", "existing directory to save shrunk failures in, e.g. corpus/sse (default: none; fuzzing never rewrites the corpus unasked)")
	maxSaved := fs.Int("save", 3, "at most this many shrunk failures saved per distinct rule set (0: save none)")
	codec := fs.Bool("codec", true, "check codec-round-trip: Reduce(frames) equals model/frames' observed message after every event")
	usePeer := fs.Bool("peer", false, "check codec-peer-identical: pi-ai's encoder gives the same frame bytes (needs node)")
	timeout := fs.Duration("timeout", 6*time.Hour, "kill the --exec adapter (its whole process group) after this long")
	if code := parseFlags(fs, args, providerUsage, nil, stdout, stderr); code >= 0 {
		return fuzzConfig{}, code
	}
	if code := noArgs(fs, stderr); code >= 0 {
		return fuzzConfig{}, code
	}
	bad := func(format string, a ...any) (fuzzConfig, int) {
		return fuzzConfig{}, usageError(stderr, providerWho, format, a...)
	}
	wire, err := impl.ParseWire(*wireName)
	if err != nil {
		return bad("--wire: %s", trimPrefix(err, "provider"))
	}
	switch {
	case (*adapter == "") == (*execCmd == ""):
		return bad("need exactly one of --adapter go or --exec CMD")
	case *adapter != "" && *adapter != "go":
		return bad("--adapter %q: the only built-in adapter is go", *adapter)
	case *seeds < 1:
		return bad("--seeds must be at least 1, got %d", *seeds)
	case *maxSaved < 0:
		return bad("--save must not be negative, got %d", *maxSaved)
	case *timeout <= 0:
		return bad("--timeout %s: must be positive", *timeout)
	}
	bug, err := impl.ParseBug(*bugName)
	if err != nil {
		return bad("--bug: %s", trimPrefix(err, "provider"))
	}
	cfg := fuzzConfig{wire: wire, execCmd: *execCmd, bug: bug, seed: *first, seeds: *seeds, asJSON: *asJSON,
		corpusDir: *corpusDir, maxSaved: *maxSaved, codec: *codec, peer: *usePeer, timeout: *timeout}
	if cfg.execCmd != "" && cfg.execCmd != "pi-ai" {
		// One parser for every command flag: quotes keep a path with
		// blanks in one word, as in conform --exec.
		if cfg.argv, err = commandWords("--exec", cfg.execCmd); err != nil {
			return bad("%v", err)
		}
	}
	if cfg.corpusDir != "" {
		if info, err := os.Stat(cfg.corpusDir); err != nil || !info.IsDir() {
			return bad("--corpus %s: not a directory", cfg.corpusDir)
		}
	}
	if cfg.maxSaved == 0 {
		cfg.corpusDir = ""
	}
	return cfg, -1
}

// startSubject starts the adapter under test and returns it with the flags
// that select it again (for reproduction lines) and its cleanup.
func (cfg fuzzConfig) startSubject(ctx context.Context) (provider.Subject, string, func(), error) {
	if cfg.execCmd == "" {
		flags := "--adapter go"
		if cfg.bug != impl.BugNone {
			flags += " --bug " + cfg.bug.String()
		}
		return provider.GoSubject{Bug: cfg.bug}, flags, func() {}, nil
	}
	var s *provider.ExecSubject
	var err error
	if cfg.execCmd == "pi-ai" {
		s, err = provider.StartPiAIContext(ctx, cfg.seeds*200+100, cfg.timeout)
	} else {
		s, err = provider.StartExecContext(ctx, cfg.argv, "", cfg.seeds*200+100, cfg.timeout)
	}
	if err != nil {
		msg := trimPrefix(err, "provider")
		if cfg.execCmd == "pi-ai" {
			msg += peerHint
		}
		return nil, "", nil, fmt.Errorf("--exec: %s", msg)
	}
	return s, fmt.Sprintf("--exec %q", cfg.execCmd), s.Close, nil
}

// printFuzzSummary prints the summary as JSON or as text.
func printFuzzSummary(w io.Writer, sum provider.FuzzSummary, cfg fuzzConfig) {
	if cfg.asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		_ = enc.Encode(sum) // dispatch's checked stdout reports a failed write
		return
	}
	fmt.Fprintf(w, "%s on %s: %d streams, %d failed\n", sum.Subject, sum.Wire, sum.Streams, sum.Failed)
	if sum.Interrupted {
		fmt.Fprintf(w, "interrupted: %d of %d streams ran\n", sum.Streams, cfg.seeds)
	}
	var rules []string
	for r := range sum.Verdicts {
		rules = append(rules, r)
	}
	sort.Strings(rules)
	for _, r := range rules {
		fmt.Fprintf(w, "  %-28s %d streams\n", r, sum.Verdicts[r])
	}
	for _, c := range sum.Corpus {
		fmt.Fprintf(w, "  saved %s\n", c)
	}
	if len(sum.Reproducer) > 0 {
		fmt.Fprintf(w, "reproduce: %s\n", sum.Reproducer[0])
	}
	if sum.Failed > 0 && cfg.corpusDir == "" {
		fmt.Fprintln(w, "(shrunk failures not saved: --corpus DIR saves them, e.g. --corpus corpus/sse)")
	}
}

// peerHint says where the pi-ai peer comes from, for runs outside a checkout.
const peerHint = " (run inside a frameproof checkout, or set $" + peer.DirEnv + " to its corpus/peers/pi-ai)"

func isTTY(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}
