package main

import (
	"fmt"
	"io"
)

// version is the frameproof release.
const version = "0.1.0"

func init() {
	register("version", "print the frameproof version", func(args []string, _ io.Reader, stdout, stderr io.Writer) int {
		if len(args) != 0 {
			fmt.Fprintln(stderr, "usage: frameproof version")
			return exitUsage
		}
		fmt.Fprintf(stdout, "frameproof %s (pi-ai peer 1.0.3, JSONL format v4)\n", version)
		return exitPass
	})
}
