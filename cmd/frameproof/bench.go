package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/frameproof/frameproof/props/bench"
)

func init() {
	register("bench", "run the side-by-side benchmark families and print the tables of docs/BENCH.md (--write updates it)", runBench)
}

// runBench runs the named families (by default all but the campaign
// family, which needs --base) and prints each table.
// A family that fails to run is an environment error (exit 4): the tables are
// docs/BENCH.md's figures, so a partial run must not look like a complete one.
func runBench(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	family := fs.String("family", "", "comma-separated families to run (default: all)")
	quick := fs.Bool("quick", false, "small sizes and few iterations (a smoke run, not figures)")
	peerDir := fs.String("peer-dir", "", "the pi-ai peer directory (default: corpus/peers/pi-ai from the working directory)")
	base := fs.String("base", "", "a frameproof binary built from the commit to compare against (the campaign family)")
	pairs := fs.Int("pairs", 0, "campaign family: how many base/this pairs to run (default 3, 1 with --quick)")
	write := fs.String("write", "", "also write each family's tables into its section of this Markdown file (docs/BENCH.md), after every family ran")
	help := func(w io.Writer) {
		fmt.Fprintln(w, "families:")
		for _, f := range bench.Families() {
			fmt.Fprintf(w, "  %-10s %s\n", f.Name, f.Summary)
		}
	}
	if code := parseFlags(fs, args, benchUsage, help, stdout, stderr); code >= 0 {
		return code
	}
	if code := noArgs(fs, stderr); code >= 0 {
		return code
	}
	pairsSet := false
	fs.Visit(func(f *flag.Flag) { pairsSet = pairsSet || f.Name == "pairs" })
	if pairsSet && *pairs < 1 {
		// 0 is the unset default (3 pairs); asked for, it is no campaign.
		return usageError(stderr, "bench", "--pairs must be at least 1, got %d", *pairs)
	}
	selected, err := selectFamilies(*family)
	if err != nil {
		fmt.Fprintf(stderr, "frameproof bench: %v\n", err)
		return exitUsage
	}
	at := slices.IndexFunc(selected, func(f bench.Family) bool { return f.NeedsBase })
	switch {
	case (*base != "" || pairsSet) && at < 0:
		return usageError(stderr, "bench", "--base and --pairs are for a family that compares with a base build (--family campaign)")
	case at >= 0 && *base == "":
		return usageError(stderr, "bench", "the %s family needs --base BIN, a frameproof binary built from the commit to compare against", selected[at].Name)
	}
	if err := checkOutputFile("--write", *write); err != nil {
		return ioError(stderr, "bench", "%v", err)
	}
	opts := bench.Options{Quick: *quick, PeerDir: *peerDir, Base: *base, Pairs: *pairs}
	ctx, stop := interruptContext()
	defer stop()
	sections := map[string][]byte{}
	for _, f := range selected {
		tables, err := f.Run(ctx, opts)
		if err != nil && ctx.Err() != nil {
			fmt.Fprintf(stderr, "frameproof bench: %s: interrupted\n", f.Name)
			return exitCode(classInterrupted)
		}
		if err != nil {
			return envError(stderr, "bench", "%s: %v", f.Name, err)
		}
		for _, t := range tables {
			if err := bench.Render(stdout, t); err != nil {
				return ioError(stderr, "bench", "writing output: %v", err)
			}
		}
		if sections[f.Name], err = bench.RenderSection(f.Name, opts, tables); err != nil {
			return ioError(stderr, "bench", "%v", err)
		}
	}
	if *write != "" {
		if err := writeSections(*write, selected, sections); err != nil {
			return ioError(stderr, "bench", "--write %s: %v", *write, err)
		}
	}
	return exitPass
}

// writeSections replaces (or appends) each family's section of the
// Markdown file at path, all at once: the file is written whole to a
// temporary file beside it, synced and renamed over it, so a failed run
// leaves the previous figures.
func writeSections(path string, fams []bench.Family, sections map[string][]byte) error {
	const maxDoc = 16 << 20
	var doc []byte
	if _, err := os.Stat(path); err == nil {
		if doc, _, err = readBounded(path, path, "a document's", maxDoc); err != nil {
			return err
		}
	} else {
		doc = []byte("# Measured speed\n\nEach section below is written by `frameproof bench --write docs/BENCH.md` (one family: `--family NAME`); do not edit it by hand.\n")
	}
	for _, f := range fams {
		var err error
		if doc, err = bench.ReplaceSection(doc, f.Name, sections[f.Name]); err != nil {
			return err
		}
	}
	return writeFileAtomic(path, doc)
}

const benchUsage = "usage: frameproof bench [--family a,b] [--quick] [--peer-dir DIR] [--base BIN [--pairs N]]"

// selectFamilies is the named families, or the default run's (every family
// but those that run only when named).
func selectFamilies(list string) ([]bench.Family, error) {
	if list == "" {
		return bench.Defaults(), nil
	}
	var out []bench.Family
	for _, name := range strings.Split(list, ",") {
		f, ok := bench.Lookup(strings.TrimSpace(name))
		if !ok {
			return nil, fmt.Errorf("--family: unknown family %q", name)
		}
		out = append(out, f)
	}
	return out, nil
}
