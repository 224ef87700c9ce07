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

// forEachLine calls fn with every non-blank line and its 1-based number.
// Lines may be arbitrarily long.
func forEachLine(r io.Reader, fn func(n int, line string) error) error {
	br := bufio.NewReaderSize(r, 1<<16)
	for n := 1; ; n++ {
		line, err := br.ReadString('\n')
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
			return fmt.Errorf("reading stdin: %w", err)
		}
	}
}

func runEncode(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) != 0 {
		fmt.Fprintln(stderr, "usage: frameproof encode < events.jsonl")
		return exitUsage
	}
	out := bufio.NewWriter(stdout)
	defer out.Flush()
	enc := frames.NewEncoder()
	buf := []byte{}
	err := forEachLine(stdin, func(n int, line string) error {
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
	if err != nil {
		out.Flush()
		fmt.Fprintf(stderr, "frameproof encode: %v\n", err)
		return exitFail
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
	fs.SetOutput(stderr)
	strict := fs.Bool("strict", false, "reject frames that do not fit pi-ai's frame types")
	if err := fs.Parse(args); err != nil || fs.NArg() != 0 {
		fmt.Fprintln(stderr, "usage: frameproof reduce [--strict] < frames.jsonl")
		return exitUsage
	}
	var out []byte
	var err error
	if *strict {
		out, err = reduceStrict(stdin)
	} else {
		out, err = reduceAsPiAI(stdin)
	}
	if err != nil {
		fmt.Fprintf(stderr, "frameproof reduce: %v\n", err)
		return exitFail
	}
	if _, err := stdout.Write(append(out, '\n')); err != nil {
		fmt.Fprintf(stderr, "frameproof reduce: writing stdout: %v\n", err)
		return exitIO
	}
	return exitPass
}

func reduceAsPiAI(stdin io.Reader) ([]byte, error) {
	red := frames.NewValueReducer()
	err := forEachLine(stdin, func(n int, line string) error {
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

func reduceStrict(stdin io.Reader) ([]byte, error) {
	red := frames.NewReducer()
	err := forEachLine(stdin, func(n int, line string) error {
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
