package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/frameproof/frameproof/props/peer"
	"github.com/frameproof/frameproof/props/pirecovery"
)

func init() {
	register("pi-recovery-sweep", "crash pi's harness at every commit boundary and compare its recovery with frameproof recover and impl/lane", runPiRecoverySweep)
}

// runPiRecoverySweep runs pi-agent-core's recovery sweep against one
// release (--pi) and prints the comparison, or against several (--versions)
// and prints the version table. Exit codes: 0 all agree (and every change
// between releases is explained), 1 a disagreement or an unexplained
// change, 2 usage, 3 interrupted, 4 node or a peer missing.
func runPiRecoverySweep(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fset := flag.NewFlagSet("pi-recovery-sweep", flag.ContinueOnError)
	runs := fset.String("runs", "", "comma-separated scripted runs (default: all)")
	every := fset.Int("every", 1, "keep every N-th crash point of each run, and its last")
	piVersion := fset.String("pi", pirecovery.DefaultRelease, "the pinned pi-agent-core release to sweep (0.85.1, 0.87.1, 0.99.1)")
	versions := fset.String("versions", "", "comma-separated releases: sweep each and print what changes between them (the first is the base)")
	write := fset.String("write", "", "with --versions: replace the version table's marked section of this Markdown file")
	peerDir := fset.String("peer", "", "the 0.85.1 peer folder holding the sweep script (default: corpus/peers/pi-agent-core, installed on first use)")
	corpusOut := fset.String("corpus-out", "", "write one corpus entry per distinct recovery shape into this directory")
	usageLine := "usage: frameproof pi-recovery-sweep [--pi VERSION | --versions A,B,... [--write FILE]] [--runs a,b] [--every N] [--peer DIR] [--corpus-out DIR]"
	if code := parseFlags(fset, args, usageLine, nil, stdout, stderr); code >= 0 {
		return code
	}
	if code := noArgs(fset, stderr); code >= 0 {
		return code
	}
	if *every < 1 {
		return usageError(stderr, "pi-recovery-sweep", "--every must be positive, got %d", *every)
	}
	set := map[string]bool{}
	fset.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if set["versions"] && (set["pi"] || set["corpus-out"]) {
		return usageError(stderr, "pi-recovery-sweep", "--versions sweeps every release it names; it takes no --pi or --corpus-out")
	}
	if *write != "" && !set["versions"] {
		return usageError(stderr, "pi-recovery-sweep", "--write needs --versions")
	}
	var rels []pirecovery.Release
	names := []string{*piVersion}
	if set["versions"] {
		names = strings.Split(*versions, ",")
	}
	for _, v := range names {
		rel, err := pirecovery.ReleaseOf(strings.TrimSpace(v))
		if err != nil {
			return usageError(stderr, "pi-recovery-sweep", "%v", err)
		}
		rels = append(rels, rel)
	}
	if err := checkOutputDir("--corpus-out", *corpusOut); err != nil {
		return ioError(stderr, "pi-recovery-sweep", "%v", err)
	}
	if err := checkOutputFile("--write", *write); err != nil {
		return ioError(stderr, "pi-recovery-sweep", "%v", err)
	}
	scriptDir := *peerDir
	if scriptDir == "" {
		d, err := peer.Ensure(peer.PiAgentCore)
		if err != nil {
			return ioError(stderr, "pi-recovery-sweep", "%v", err)
		}
		scriptDir = d
	}
	opts := pirecovery.Options{Every: *every}
	if *runs != "" {
		opts.Runs = strings.Split(*runs, ",")
	}
	ctx, stop := interruptContext()
	defer stop()
	var reports []pirecovery.Report
	for _, rel := range rels {
		o := opts
		if rel.Peer != peer.PiAgentCore {
			d, err := peer.Ensure(rel.Peer)
			if err != nil {
				return ioError(stderr, "pi-recovery-sweep", "%v", err)
			}
			o.PiDir = d
		}
		rep, err := pirecovery.Sweep(ctx, scriptDir, rel, o)
		if ctx.Err() != nil {
			fmt.Fprintln(stderr, "frameproof pi-recovery-sweep: interrupted")
			return exitInconclusive
		}
		if err != nil {
			if errors.Is(err, pirecovery.ErrEnvironment) {
				return ioError(stderr, "pi-recovery-sweep", "%v", err)
			}
			fmt.Fprintf(stderr, "frameproof pi-recovery-sweep: %v\n", err)
			return exitFail
		}
		reports = append(reports, rep)
	}
	if !set["versions"] {
		rep := reports[0]
		if err := rep.Write(stdout); err != nil {
			return ioError(stderr, "pi-recovery-sweep", "writing output: %v", err)
		}
		if *corpusOut != "" {
			if err := pirecovery.WriteEntries(*corpusOut, rep.ShapeEntries()); err != nil {
				return ioError(stderr, "pi-recovery-sweep", "%v", err)
			}
		}
		if c := rep.Counts(); c.Agreements != c.Points {
			return exitFail
		}
		return exitPass
	}
	v := pirecovery.Versions{Releases: rels, Reports: reports}
	var table strings.Builder
	if err := v.Write(&table); err != nil {
		return ioError(stderr, "pi-recovery-sweep", "%v", err)
	}
	if _, err := io.WriteString(stdout, table.String()); err != nil {
		return ioError(stderr, "pi-recovery-sweep", "writing output: %v", err)
	}
	if *write != "" {
		if err := writeVersionTable(*write, []byte(table.String())); err != nil {
			return ioError(stderr, "pi-recovery-sweep", "--write %s: %v", *write, err)
		}
	}
	code := exitPass
	for i, rep := range reports {
		if c := rep.Counts(); c.Agreements != c.Points {
			fmt.Fprintf(stderr, "frameproof pi-recovery-sweep: pi-agent-core %s: %d of %d points disagree (run it with --pi %s for the diffs)\n",
				rels[i].Version, c.Points-c.Agreements, c.Points, rels[i].Version)
			code = exitFail
		}
	}
	if n := v.Unexplained(); n > 0 {
		fmt.Fprintf(stderr, "frameproof pi-recovery-sweep: %d changes between releases have no explanation\n", n)
		code = exitFail
	}
	return code
}

// writeVersionTable replaces (or appends) the version table's section of
// the Markdown file at path, written whole beside it and renamed over it.
func writeVersionTable(path string, table []byte) error {
	const maxDoc = 16 << 20
	var doc []byte
	if _, err := os.Stat(path); err == nil {
		if doc, _, err = readBounded(path, path, "a document's", maxDoc); err != nil {
			return err
		}
	}
	doc, err := pirecovery.ReplaceSection(doc, table)
	if err != nil {
		return err
	}
	return writeFileAtomic(path, doc)
}
