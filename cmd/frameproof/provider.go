package main

import (
	"encoding/json"
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

type providerSummary struct {
	Wire       string         `json:"wire"`
	Subject    string         `json:"subject"`
	Streams    int            `json:"streams"`
	Failed     int            `json:"failed"`
	Verdicts   map[string]int `json:"verdicts"` // streams breaking each rule
	Reproducer []string       `json:"reproducers,omitempty"`
	Corpus     []string       `json:"corpus,omitempty"`
}

const providerUsage = "usage: frameproof provider fuzz --wire W (--adapter go | --exec CMD) [--seeds N] [--seed S] [--bug B] [--codec=false] [--peer] [--json] [--corpus DIR] [--save N] [--timeout D]"

func runProvider(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 && isHelpArg(args[0]) {
		fmt.Fprintln(stdout, providerUsage)
		return exitPass
	}
	if len(args) == 0 || args[0] != "fuzz" {
		fmt.Fprintln(stderr, providerUsage)
		return exitUsage
	}
	const who = "provider fuzz"
	fs := flag.NewFlagSet(who, flag.ContinueOnError)
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
	if code := parseFlags(fs, args[1:], providerUsage, nil, stdout, stderr); code >= 0 {
		return code
	}
	if code := noArgs(fs, stderr); code >= 0 {
		return code
	}
	wire, err := impl.ParseWire(*wireName)
	if err != nil {
		return usageError(stderr, who, "--wire: %s", trimPrefix(err, "provider"))
	}
	switch {
	case (*adapter == "") == (*execCmd == ""):
		return usageError(stderr, who, "need exactly one of --adapter go or --exec CMD")
	case *adapter != "" && *adapter != "go":
		return usageError(stderr, who, "--adapter %q: the only built-in adapter is go", *adapter)
	case *seeds < 1:
		return usageError(stderr, who, "--seeds must be at least 1, got %d", *seeds)
	case *maxSaved < 0:
		return usageError(stderr, who, "--save must not be negative, got %d", *maxSaved)
	case *timeout <= 0:
		return usageError(stderr, who, "--timeout %s: must be positive", *timeout)
	}
	bug, err := impl.ParseBug(*bugName)
	if err != nil {
		return usageError(stderr, who, "--bug: %s", trimPrefix(err, "provider"))
	}
	dir := *corpusDir
	if dir != "" {
		if info, err := os.Stat(dir); err != nil || !info.IsDir() {
			return usageError(stderr, who, "--corpus %s: not a directory", dir)
		}
	}
	if *maxSaved == 0 {
		dir = ""
	}
	if err := checkOutputDir("--corpus", dir); err != nil {
		return ioError(stderr, who, "%v", err)
	}
	var subject provider.Subject = provider.GoSubject{Bug: bug}
	subjectFlag := "--adapter go"
	if bug != impl.BugNone {
		subjectFlag += " --bug " + bug.String()
	}
	if *execCmd != "" {
		var s *provider.ExecSubject
		if *execCmd == "pi-ai" {
			s, err = provider.StartPiAI(*seeds*200+100, *timeout)
		} else {
			s, err = provider.StartExec(strings.Fields(*execCmd), "", *seeds*200+100, *timeout)
		}
		if err != nil {
			msg := trimPrefix(err, "provider")
			if *execCmd == "pi-ai" {
				msg += peerHint
			}
			return ioError(stderr, who, "--exec: %s", msg)
		}
		defer s.Close()
		subject = s
		subjectFlag = fmt.Sprintf("--exec %q", *execCmd)
	}
	opts := provider.RunOptions{NoCodec: !*codec}
	if *usePeer {
		p, err := peer.Start()
		if err != nil {
			return ioError(stderr, who, "--peer: %s%s", trimPrefix(err, "peer"), peerHint)
		}
		defer func() { _ = p.Close() }()
		opts.Peer = p
		subjectFlag += " --peer"
	}
	if !*codec {
		subjectFlag += " --codec=false"
	}
	sum := providerSummary{Wire: string(wire), Subject: subject.Name(), Verdicts: map[string]int{}}
	savedPerRules := map[string]int{}
	var saveErr error // a shrunk failure that could not be saved
	gen := provider.GenScenario(wire)
	tty := isTTY(stderr)
	for seed := *first; seed < *first+*seeds; seed++ {
		if tty && seed%50 == 0 {
			fmt.Fprintf(stderr, "\r%s: %d/%d streams, %d failed", wire, seed-*first, *seeds, sum.Failed)
		}
		sc := gen.Example(seed)
		res, err := provider.RunScenarioWith(subject, sc, opts)
		if err != nil {
			fmt.Fprintf(stderr, "frameproof provider fuzz: seed %d: %s\n", seed, trimPrefix(err, "provider"))
			return exitFail
		}
		sum.Streams++
		if !res.Failed() {
			continue
		}
		sum.Failed++
		rules := ruleSet(res.Violations)
		for _, r := range rules {
			sum.Verdicts[r]++
		}
		// --save 0: reproducing a failure must not rewrite the corpus.
		repro := fmt.Sprintf("frameproof provider fuzz --wire %s %s --seed %d --seeds 1 --save 0", wire, subjectFlag, seed)
		sum.Reproducer = appendCapped(sum.Reproducer, repro, 20)
		key := strings.Join(rules, ",")
		if dir == "" || savedPerRules[key] >= *maxSaved {
			continue
		}
		savedPerRules[key]++
		shrunk := provider.Shrink(sc, func(c provider.Scenario) bool {
			r, err := provider.RunScenarioWith(subject, c, opts)
			return err == nil && overlaps(ruleSet(r.Violations), rules)
		})
		final, err := provider.RunScenarioWith(subject, shrunk, opts)
		if err != nil {
			continue
		}
		entry := provider.NewCorpusEntry(subject.Name(), repro, final)
		name := fmt.Sprintf("%s-%s-seed%d", wire, sanitize(subject.Name()), seed)
		path, err := provider.WriteCorpusEntry(dir, name, entry)
		if err != nil {
			fmt.Fprintf(stderr, "frameproof provider fuzz: --corpus: %s\n", trimPrefix(err, "provider"))
			saveErr = err
			continue
		}
		sum.Corpus = append(sum.Corpus, path)
	}
	if tty {
		fmt.Fprintln(stderr)
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(sum) // dispatch's checked stdout reports a failed write
	} else {
		fmt.Fprintf(stdout, "%s on %s: %d streams, %d failed\n", sum.Subject, sum.Wire, sum.Streams, sum.Failed)
		var rules []string
		for r := range sum.Verdicts {
			rules = append(rules, r)
		}
		sort.Strings(rules)
		for _, r := range rules {
			fmt.Fprintf(stdout, "  %-28s %d streams\n", r, sum.Verdicts[r])
		}
		for _, c := range sum.Corpus {
			fmt.Fprintf(stdout, "  saved %s\n", c)
		}
		if len(sum.Reproducer) > 0 {
			fmt.Fprintf(stdout, "reproduce: %s\n", sum.Reproducer[0])
		}
		if sum.Failed > 0 && dir == "" {
			fmt.Fprintln(stdout, "(shrunk failures not saved: --corpus DIR saves them, e.g. --corpus corpus/sse)")
		}
	}
	if sum.Failed > 0 {
		return exitFail
	}
	return outputCode(exitPass, saveErr)
}

// peerHint says where the pi-ai peer comes from, for runs outside a checkout.
const peerHint = " (run inside a frameproof checkout, or set $" + peer.DirEnv + " to its corpus/peers/pi-ai)"

func ruleSet(vs []provider.Violation) []string {
	seen := map[string]bool{}
	var out []string
	for _, v := range vs {
		if !seen[v.Rule] {
			seen[v.Rule] = true
			out = append(out, v.Rule)
		}
	}
	sort.Strings(out)
	return out
}

func overlaps(a, b []string) bool {
	for _, x := range a {
		for _, y := range b {
			if x == y {
				return true
			}
		}
	}
	return false
}

func appendCapped(s []string, v string, n int) []string {
	if len(s) >= n {
		return s
	}
	return append(s, v)
}

func sanitize(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '.' {
			return r
		}
		return '_'
	}, s)
}

func isTTY(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}
