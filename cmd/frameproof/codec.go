package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/frameproof/frameproof/impl/frames"
	"github.com/frameproof/frameproof/impl/pi"
)

// encode and reduce expose pi-ai's frame codec on JSONL, one value a line.

func init() {
	register("encode", "events JSONL on stdin → one frame (or null) per event, as JSON.stringify writes it", runEncode)
	register("reduce", "frames JSONL on stdin (null lines skipped) → the message pi-ai's reducer returns (or null); --strict checks pi's frame types", runReduce)
}

// defaultMaxLine bounds one stdin line of encode and reduce. An event line
// carries the whole partial message so far, so lines grow with the message;
// 64 MiB is far above any real assistant message and still bounded.
const defaultMaxLine = 64 << 20

// errLineTooLong is returned by forEachLine for a line over the limit.
var errLineTooLong = errors.New("line too long")

// forEachLine calls fn with every non-blank line and its 1-based number.
// A line longer than maxLine bytes stops the read with an error before the
// rest of it is read.
func forEachLine(r io.Reader, maxLine int, fn func(n int, line string) error) error {
	br := bufio.NewReaderSize(r, 1<<16)
	var buf []byte
	for n := 1; ; n++ {
		buf = buf[:0]
		var err error
		for {
			var chunk []byte
			chunk, err = br.ReadSlice('\n')
			if len(buf)+len(chunk) > maxLine+1 { // +1: the newline itself
				return fmt.Errorf("line %d: %w: more than --max-line %d bytes", n, errLineTooLong, maxLine)
			}
			buf = append(buf, chunk...)
			if !errors.Is(err, bufio.ErrBufferFull) {
				break
			}
		}
		line := string(buf)
		if len(line) > 0 && line[len(line)-1] == '\n' {
			line = line[:len(line)-1]
			if len(line) > 0 && line[len(line)-1] == '\r' {
				line = line[:len(line)-1]
			}
		}
		if line != "" {
			if ferr := fn(n, line); ferr != nil {
				return ferr
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return &stdinError{err}
		}
	}
}

// stdinError is a failure to read stdin (an environment error, exit 4),
// as opposed to bad content in it (exit 1).
type stdinError struct{ err error }

func (e *stdinError) Error() string { return "reading stdin: " + e.err.Error() }
func (e *stdinError) Unwrap() error { return e.err }

// codecExit maps a line loop's error to an exit code.
func codecExit(err error) int {
	var se *stdinError
	if errors.As(err, &se) {
		return exitIO
	}
	return exitFail
}

// codecFlags parses the flags encode and reduce share into fs (which may
// hold a command's own flags already): --max-line, no positional arguments.
func codecFlags(fs *flag.FlagSet, usageLine, help string, args []string, stdout, stderr io.Writer) (maxLine, code int) {
	ml := fs.Int("max-line", defaultMaxLine, "longest stdin line accepted, in bytes")
	helpText := func(w io.Writer) { fmt.Fprintln(w, help) }
	if code := parseFlags(fs, args, usageLine, helpText, stdout, stderr); code >= 0 {
		return 0, code
	}
	if code := noArgs(fs, stderr); code >= 0 {
		return 0, code
	}
	if *ml <= 0 {
		return 0, usageError(stderr, fs.Name(), "--max-line must be positive, got %d", *ml)
	}
	return *ml, -1
}

func runEncode(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	maxLine, code := codecFlags(flag.NewFlagSet("encode", flag.ContinueOnError), "usage: frameproof encode [--max-line N] < events.jsonl",
		"Reads pi-ai AssistantMessageEvents, one JSON object a line (as a provider stream emits them,\n"+
			"each with its partial message), and prints for each the frame pi-ai's encoder returns, or null.\n"+
			"Example input: corpus/examples/events.jsonl",
		args, stdout, stderr)
	if code >= 0 {
		return code
	}
	out := bufio.NewWriter(stdout)
	enc := frames.NewEncoder()
	buf := []byte{}
	err := forEachLine(stdin, maxLine, func(n int, line string) error {
		ev, err := pi.ParseEvent(line)
		if err != nil {
			return fmt.Errorf("line %d: %w", n, err)
		}
		f, err := enc.Encode(ev)
		if err != nil {
			return fmt.Errorf("line %d: %w", n, err)
		}
		buf = buf[:0]
		if f == nil {
			buf = append(buf, "null"...)
		} else {
			buf = f.AppendJSON(buf)
		}
		buf = append(buf, '\n')
		_, werr := out.Write(buf)
		return werr
	})
	if ferr := out.Flush(); ferr != nil {
		return exitIO // dispatch's checked stdout recorded and reports it
	}
	if err != nil {
		fmt.Fprintf(stderr, "frameproof encode: %v\n", err)
		return codecExit(err)
	}
	return exitPass
}

// runReduce reduces as pi-ai's reduceAssistantMessageFrames does on stored
// frames (frames.ReduceValues: unknown types ignored, members unchecked, JS
// semantics). --strict reads every frame with pi's types first
// (pi.ParseFrame, frames.Reduce) and reports the first frame that does not
// fit them: a diagnostic for what pi-ai would accept silently.
func runReduce(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("reduce", flag.ContinueOnError)
	strict := fs.Bool("strict", false, "reject frames that do not fit pi-ai's frame types")
	maxLine, code := codecFlags(fs, "usage: frameproof reduce [--strict] [--max-line N] < frames.jsonl",
		"Reads pi-ai frames, one JSON value a line (null lines, encode's \"no frame\", are skipped),\n"+
			"and prints the assistant message pi-ai's reduceAssistantMessageFrames returns, or null.\n"+
			"Example input: corpus/examples/frames.jsonl (or: frameproof encode < corpus/examples/events.jsonl)",
		args, stdout, stderr)
	if code >= 0 {
		return code
	}
	var out []byte
	var err error
	if *strict {
		out, err = reduceStrict(stdin, maxLine)
	} else {
		out, err = reduceAsPiAI(stdin, maxLine)
	}
	if err != nil {
		fmt.Fprintf(stderr, "frameproof reduce: %v\n", err)
		return codecExit(err)
	}
	if _, err := stdout.Write(append(out, '\n')); err != nil {
		return exitIO // dispatch's checked stdout reports the error
	}
	return exitPass
}

func reduceAsPiAI(stdin io.Reader, maxLine int) ([]byte, error) {
	red := frames.NewValueReducer()
	err := forEachLine(stdin, maxLine, func(n int, line string) error {
		if line == "null" {
			return nil // encode's "no frame" lines, so `encode | reduce` works
		}
		// ApplyJSON: pi.ParseJSON + Apply, delta frames byte by byte.
		if err := red.ApplyJSON([]byte(line)); err != nil {
			return fmt.Errorf("line %d: %w", n, err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	m, err := red.Finish()
	if err != nil {
		return nil, err
	}
	if m.IsUndefined() {
		return []byte("null"), nil
	}
	return m.AppendJSON(nil), nil
}

func reduceStrict(stdin io.Reader, maxLine int) ([]byte, error) {
	red := frames.NewReducer()
	err := forEachLine(stdin, maxLine, func(n int, line string) error {
		if line == "null" {
			return nil
		}
		f, err := pi.ParseFrame(line)
		if err != nil {
			return fmt.Errorf("line %d: %w", n, err)
		}
		if err := red.Apply(f); err != nil {
			return fmt.Errorf("line %d: %w", n, err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	m, err := red.Message()
	if err != nil {
		return nil, err
	}
	if m == nil {
		return []byte("null"), nil
	}
	return m.AppendJSON(nil), nil
}
