package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/frameproof/frameproof/props/corpus"
)

// corpus run checks every corpus entry in-process: codec vectors against
// impl/frames, replay vectors against impl/replay + model/replay +
// model/wire, JSONL golden files against impl/store/jsonl, SSE transcripts
// against the Go reference adapters.

func init() {
	register("corpus", "corpus run: check every corpus entry in-process, per family", runCorpus)
}

const corpusUsage = "usage: frameproof corpus run [--json] [--junit FILE] [--corpus DIR] [--family codec,replay,jsonl,sse]"

func runCorpus(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] != "run" {
		fmt.Fprintln(stderr, corpusUsage)
		return exitUsage
	}
	fs := flag.NewFlagSet("corpus run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	asJSON := fs.Bool("json", false, "print the report as JSON instead of text")
	junit := fs.String("junit", "", "also write JUnit XML to this file")
	root := fs.String("corpus", "", "corpus root (default: corpus/ of this module)")
	familyFlag := fs.String("family", "", "comma-separated families to run (default: all)")
	if err := fs.Parse(args[1:]); err != nil || fs.NArg() != 0 {
		fmt.Fprintln(stderr, corpusUsage)
		return exitUsage
	}
	families, err := pickFamilies(*familyFlag)
	if err != nil {
		fmt.Fprintln(stderr, "frameproof corpus run:", err)
		return exitUsage
	}
	dir := *root
	if dir == "" {
		if dir, err = corpus.Root(); err != nil {
			fmt.Fprintln(stderr, "frameproof corpus run:", err)
			return exitUsage
		}
	}
	if info, err := os.Stat(dir); err != nil || !info.IsDir() {
		fmt.Fprintf(stderr, "frameproof corpus run: --corpus %s: not a directory\n", dir)
		return exitUsage
	}
	rep := &Report{Schema: ReportSchema, Command: "corpus run"}
	if v, err := corpus.CodecVersion(corpus.CodecDir(dir)); err == nil {
		rep.CorpusVersion = v
	}
	for _, f := range families {
		out, err := f.Run(dir)
		if err != nil {
			// A family that cannot be read is a broken corpus: a failure.
			rep.add(f.Name, ReportCase{Name: f.Name + "/(load)", Status: statusFail, Detail: err.Error()})
			continue
		}
		for _, o := range out {
			c := ReportCase{Name: o.Name, Status: statusPass}
			if o.Err != nil {
				c.Status, c.Detail = statusFail, o.Err.Error()
			}
			rep.add(f.Name, c)
		}
	}
	code := rep.writeJUnitKeeping(*junit, "frameproof corpus run", rep.finish(), stderr)
	if *asJSON {
		_ = rep.writeJSON(stdout)
		return code
	}
	for _, s := range rep.Suites {
		for _, c := range s.Cases {
			if c.Status != statusPass {
				printCase(stdout, c)
			}
		}
	}
	fmt.Fprintf(stdout, "%-8s %7s %7s %7s\n", "family", "entries", "passed", "failed")
	for _, s := range rep.Suites {
		fmt.Fprintf(stdout, "%-8s %7d %7d %7d\n", s.Name, s.Tests, s.Passed, s.Failed)
	}
	fmt.Fprintf(stdout, "%-8s %7d %7d %7d\n", "total", rep.Tests, rep.Passed, rep.Failed)
	fmt.Fprintf(stdout, "corpus %s: %s\n", dir, strings.ToUpper(rep.Verdict))
	return code
}

func pickFamilies(s string) ([]corpus.Family, error) {
	if strings.TrimSpace(s) == "" {
		return corpus.Families, nil
	}
	var out []corpus.Family
	for _, name := range strings.Split(s, ",") {
		name = strings.TrimSpace(name)
		found := false
		for _, f := range corpus.Families {
			if f.Name == name {
				out = append(out, f)
				found = true
			}
		}
		if !found {
			var names []string
			for _, f := range corpus.Families {
				names = append(names, f.Name)
			}
			return nil, fmt.Errorf("--family: unknown family %q (want %s)", name, strings.Join(names, ", "))
		}
	}
	return out, nil
}
