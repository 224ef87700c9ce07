package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/frameproof/frameproof/props/peer"
	"github.com/frameproof/frameproof/props/pirecovery"
)

func init() {
	register("pi-recovery-sweep", "crash pi's harness at every commit boundary and compare its recovery with frameproof recover and impl/lane", runPiRecoverySweep)
}

// runPiRecoverySweep runs pi-agent-core's recovery sweep and prints the
// comparison. Exit codes: 0 all agree, 1 a disagreement, 2 usage, 4 node or
// the peer missing.
func runPiRecoverySweep(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fset := flag.NewFlagSet("pi-recovery-sweep", flag.ContinueOnError)
	runs := fset.String("runs", "", "comma-separated scripted runs (default: all)")
	every := fset.Int("every", 1, "keep every N-th crash point of each run, and its last")
	peerDir := fset.String("peer", "", "pi-agent-core peer folder (default: corpus/peers/pi-agent-core, installed on first use)")
	corpusOut := fset.String("corpus-out", "", "write one corpus entry per distinct recovery shape into this directory")
	usageLine := "usage: frameproof pi-recovery-sweep [--runs a,b] [--every N] [--peer DIR] [--corpus-out DIR]"
	if code := parseFlags(fset, args, usageLine, nil, stdout, stderr); code >= 0 {
		return code
	}
	if code := noArgs(fset, stderr); code >= 0 {
		return code
	}
	if *every < 1 {
		return usageError(stderr, "pi-recovery-sweep", "--every must be positive, got %d", *every)
	}
	if err := checkOutputDir("--corpus-out", *corpusOut); err != nil {
		return ioError(stderr, "pi-recovery-sweep", "%v", err)
	}
	dir := *peerDir
	if dir == "" {
		d, err := peer.Ensure(peer.PiAgentCore)
		if err != nil {
			return ioError(stderr, "pi-recovery-sweep", "%v", err)
		}
		dir = d
	}
	opts := pirecovery.Options{Every: *every}
	if *runs != "" {
		opts.Runs = strings.Split(*runs, ",")
	}
	rep, err := pirecovery.Sweep(context.Background(), dir, opts)
	if err != nil {
		if errors.Is(err, pirecovery.ErrEnvironment) {
			return ioError(stderr, "pi-recovery-sweep", "%v", err)
		}
		fmt.Fprintf(stderr, "frameproof pi-recovery-sweep: %v\n", err)
		return exitFail
	}
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
