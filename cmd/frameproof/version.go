package main

import (
	"flag"
	"fmt"
	"io"
)

// version is the frameproof release.
const version = "0.1.0"

func init() {
	register("version", "print the frameproof version", func(args []string, _ io.Reader, stdout, stderr io.Writer) int {
		fs := flag.NewFlagSet("version", flag.ContinueOnError)
		if code := parseFlags(fs, args, "usage: frameproof version", nil, stdout, stderr); code >= 0 {
			return code
		}
		if code := noArgs(fs, stderr); code >= 0 {
			return code
		}
		fmt.Fprintf(stdout, "frameproof %s (pi-ai peer 1.0.3, JSONL format v4)\n", version)
		return exitPass
	})
}
