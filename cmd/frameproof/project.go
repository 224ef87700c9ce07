package main

import (
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/frameproof/frameproof/impl/replay"
)

func init() {
	register("project", "project a transcript (stdin) onto a provider request body (stdout)", runProject)
}

// runProject: frameproof project --wire W [--vision] [--provider P --model M]
// [--microcompact K]. The transcript is a JSON array or JSONL of pi messages.
func runProject(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("project", flag.ContinueOnError)
	fs.SetOutput(stderr)
	wireName := fs.String("wire", "", strings.Join(replay.Wires, "|")+" (required)")
	vision := fs.Bool("vision", false, "the target model sees images")
	provider := fs.String("provider", "", "target provider id (signed reasoning crosses only for the same provider and model)")
	model := fs.String("model", "", "target model id")
	compact := fs.Int("microcompact", -1, "apply microcompact keeping the K most recent compactable results (-1: off)")
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "frameproof project: unexpected argument %q\n", fs.Arg(0))
		return exitUsage
	}
	target := replay.Target{Wire: *wireName, Provider: *provider, Model: *model, Vision: *vision}
	if !slices.Contains(replay.Wires, *wireName) {
		fmt.Fprintf(stderr, "frameproof project: --wire must be one of %s (got %q)\n", strings.Join(replay.Wires, ", "), *wireName)
		return exitUsage
	}
	if *compact < -1 {
		fmt.Fprintf(stderr, "frameproof project: --microcompact must be >= 0 or -1 (got %d)\n", *compact)
		return exitUsage
	}
	data, err := io.ReadAll(stdin)
	if err != nil {
		fmt.Fprintf(stderr, "frameproof project: reading stdin: %v\n", err)
		return exitFail
	}
	msgs, err := replay.DecodeTranscript(string(data))
	if err != nil {
		fmt.Fprintf(stderr, "frameproof project: %v\n", err)
		return exitFail
	}
	opts := replay.Options{}
	if *compact >= 0 {
		mc := replay.DefaultMicrocompact()
		mc.KeepRecent = *compact
		opts.Microcompact = &mc
	}
	body, err := replay.Project(msgs, target, opts)
	if err != nil { // includes replay.ErrNothingToSend: no wire accepts an empty history
		fmt.Fprintf(stderr, "frameproof project: %v\n", err)
		return exitFail
	}
	if _, err := stdout.Write(append(body, '\n')); err != nil {
		fmt.Fprintf(stderr, "frameproof project: writing stdout: %v\n", err)
		return exitFail
	}
	return exitPass
}
