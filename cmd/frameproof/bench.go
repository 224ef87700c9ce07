package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/frameproof/frameproof/props/bench"
)

func init() {
	register("bench", "run the side-by-side benchmark families and print the README's tables", runBench)
}

// runBench runs the named families (all by default) and prints each table.
// A family that fails to run is an environment error (exit 4): the tables are
// the README's figures, so a partial run must not look like a complete one.
func runBench(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	family := fs.String("family", "", "comma-separated families to run (default: all)")
	quick := fs.Bool("quick", false, "small sizes and few iterations (a smoke run, not figures)")
	peerDir := fs.String("peer-dir", "", "the pi-ai peer directory (default: corpus/peers/pi-ai from the working directory)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: frameproof bench [--family a,b] [--quick] [--peer-dir DIR]")
		fmt.Fprintln(stderr, "\nfamilies:")
		for _, f := range bench.Families() {
			fmt.Fprintf(stderr, "  %-10s %s\n", f.Name, f.Summary)
		}
		fmt.Fprintln(stderr)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return exitPass
		}
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "frameproof bench: unexpected argument %q\n", fs.Arg(0))
		return exitUsage
	}
	selected, err := selectFamilies(*family)
	if err != nil {
		fmt.Fprintf(stderr, "frameproof bench: %v\n", err)
		return exitUsage
	}
	opts := bench.Options{Quick: *quick, PeerDir: *peerDir}
	for _, f := range selected {
		tables, err := f.Run(context.Background(), opts)
		if err != nil {
			fmt.Fprintf(stderr, "frameproof bench: %s: %v\n", f.Name, err)
			return exitIO
		}
		for _, t := range tables {
			if err := bench.Render(stdout, t); err != nil {
				fmt.Fprintf(stderr, "frameproof bench: writing output: %v\n", err)
				return exitIO
			}
		}
	}
	return exitPass
}

func selectFamilies(list string) ([]bench.Family, error) {
	if list == "" {
		return bench.Families(), nil
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
