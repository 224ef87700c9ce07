package main

import (
	"errors"
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

const projectUsage = "usage: frameproof project --wire W [--vision] [--provider P --model M] [--microcompact K] [--max-input N] < transcript.json"

// defaultMaxInput bounds the transcript project reads: 256 MiB, far above
// any context window's worth of messages (images included), still bounded.
const defaultMaxInput = 256 << 20

func projectHelp(w io.Writer) {
	fmt.Fprintln(w, "Reads a transcript on stdin, a JSON array of pi messages (user, assistant, toolResult,")
	fmt.Fprintln(w, "each with its \"role\") or the same messages one a line (JSONL), and prints the request")
	fmt.Fprintln(w, "body pi would send to the --wire provider. Example input: corpus/examples/transcript.jsonl")
}

// runProject: frameproof project --wire W [--vision] [--provider P --model M]
// [--microcompact K]. The transcript is a JSON array or JSONL of pi messages.
func runProject(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("project", flag.ContinueOnError)
	wireName := fs.String("wire", "", strings.Join(replay.Wires, "|")+" (required)")
	vision := fs.Bool("vision", false, "the target model sees images")
	provider := fs.String("provider", "", "target provider id (signed reasoning crosses only for the same provider and model)")
	model := fs.String("model", "", "target model id")
	compact := fs.Int("microcompact", -1, "apply microcompact keeping the K most recent compactable results (-1: off)")
	maxInput := fs.Int64("max-input", defaultMaxInput, "largest transcript accepted on stdin, in bytes")
	if code := parseFlags(fs, args, projectUsage, projectHelp, stdout, stderr); code >= 0 {
		return code
	}
	if code := noArgs(fs, stderr); code >= 0 {
		return code
	}
	if *maxInput <= 0 {
		return usageError(stderr, "project", "--max-input must be positive, got %d", *maxInput)
	}
	target := replay.Target{Wire: *wireName, Provider: *provider, Model: *model, Vision: *vision}
	if !slices.Contains(replay.Wires, *wireName) {
		return usageError(stderr, "project", "--wire must be one of %s (got %q)", strings.Join(replay.Wires, ", "), *wireName)
	}
	if *compact < -1 {
		return usageError(stderr, "project", "--microcompact must be >= 0 or -1 (got %d)", *compact)
	}
	data, err := readStdinString(stdin, *maxInput)
	if errors.Is(err, errTooLarge) {
		fmt.Fprintf(stderr, "frameproof project: stdin: transcript larger than --max-input %d bytes\n", *maxInput)
		return exitFail
	}
	if err != nil {
		return ioError(stderr, "project", "reading stdin: %v", err)
	}
	msgs, err := replay.DecodeTranscript(data)
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
		return exitIO // dispatch's checked stdout reports the error
	}
	return exitPass
}
