package main

import (
	"cmp"
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
	if len(args) > 0 && isHelpArg(args[0]) {
		fmt.Fprintln(stdout, corpusUsage)
		printExits(stdout, "corpus run")
		return exitPass
	}
	if len(args) == 0 || args[0] != "run" {
		fmt.Fprintln(stderr, corpusUsage)
		return exitUsage
	}
	fs := flag.NewFlagSet("corpus run", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print the report as JSON instead of text")
	junit := fs.String("junit", "", "also write JUnit XML to this file")
	root := fs.String("corpus", "", "corpus root (default: corpus/ of the module around the working directory, or $"+corpus.RootEnv+")")
	familyFlag := fs.String("family", "", "comma-separated families to run (default: all)")
	if code := parseFlags(fs, args[1:], corpusUsage, nil, stdout, stderr); code >= 0 {
		return code
	}
	if code := noArgs(fs, stderr); code >= 0 {
		return code
	}
	families, err := pickFamilies(*familyFlag)
	if err != nil {
		return usageError(stderr, "corpus run", "%v", err)
	}
	dir, code := corpusRoot(*root, "corpus run", stderr)
	if code >= 0 {
		return code
	}
	if err := checkOutputFile("--junit", *junit); err != nil {
		return ioError(stderr, "corpus run", "%v", err)
	}
	rep := &Report{Schema: ReportSchema, Command: "corpus run"}
	if v, err := corpus.CodecVersion(corpus.CodecDir(dir)); err == nil {
		rep.CorpusVersion = v
	}
	var loadErr error
	for _, f := range families {
		out, err := f.Run(dir)
		if err != nil {
			// A family that cannot be read (no entries, an unreadable or
			// malformed file) is no verdict on its entries: an I/O error,
			// as conform's for the same vectors.
			rep.add(f.Name, ReportCase{Name: f.Name + "/(load)", Status: statusError, Detail: err.Error()})
			fmt.Fprintf(stderr, "frameproof corpus run: %s\n", trimPrefix(err, "corpus"))
			loadErr = cmp.Or(loadErr, err)
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
	code = rep.writeJUnitKeeping(*junit, "frameproof corpus run", outputCode(rep.finish(), loadErr), stderr)
	if *asJSON {
		_ = rep.writeJSON(stdout) // dispatch's checked stdout reports a failed write
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

// isHelpArg reports whether a is one of the help spellings.
func isHelpArg(a string) bool {
	return a == "-h" || a == "-help" || a == "--help" || a == "help"
}

// corpusRoot resolves a --corpus flag ("" = the module's corpus) to a
// readable directory, or returns the exit code to stop with: 2 for a bad
// --corpus, 4 when the default corpus cannot be found or read.
func corpusRoot(flagValue, who string, stderr io.Writer) (string, int) {
	dir := flagValue
	if dir == "" {
		var err error
		if dir, err = corpus.Root(); err != nil {
			return "", ioError(stderr, who, "%v, or pass --corpus DIR", trimPrefix(err, "corpus"))
		}
	}
	return checkCorpusDir(dir, flagValue != "", who, stderr)
}

// checkCorpusDir checks that dir is a readable directory; explicit says
// whether the user named it (a usage error if not) or it was found (an
// environment error).
func checkCorpusDir(dir string, explicit bool, who string, stderr io.Writer) (string, int) {
	flagValue := ""
	if explicit {
		flagValue = dir
	}
	info, err := os.Stat(dir)
	switch {
	case err != nil && flagValue != "":
		return "", usageError(stderr, who, "--corpus %s: %v", dir, unwrapPath(err))
	case err != nil:
		return "", ioError(stderr, who, "corpus %s: %v; set --corpus DIR or $%s", dir, unwrapPath(err), corpus.RootEnv)
	case !info.IsDir() && flagValue != "":
		return "", usageError(stderr, who, "--corpus %s: not a directory", dir)
	case !info.IsDir():
		return "", ioError(stderr, who, "corpus %s: not a directory", dir)
	}
	if _, err := os.ReadDir(dir); err != nil {
		return "", ioError(stderr, who, "corpus %s: cannot read: %v", dir, unwrapPath(err))
	}
	return dir, -1
}
