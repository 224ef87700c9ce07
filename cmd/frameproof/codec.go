package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"

	"github.com/frameproof/frameproof/impl/frames"
	"github.com/frameproof/frameproof/impl/pi"
)

// encode and reduce expose pi-ai's frame codec on JSONL, one value a line.

func init() {
	register("encode", "events JSONL on stdin → one frame (or null) per event, as JSON.stringify writes it", runEncode)
	register("reduce", "frames JSONL on stdin (null lines skipped) → the reduced assistant message (or null)", runReduce)
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

func runReduce(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) != 0 {
		fmt.Fprintln(stderr, "usage: frameproof reduce < frames.jsonl")
		return exitUsage
	}
	red := frames.NewReducer()
	err := forEachLine(stdin, func(n int, line string) error {
		if line == "null" {
			return nil // encode's "no frame" lines, so `encode | reduce` works
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
		fmt.Fprintf(stderr, "frameproof reduce: %v\n", err)
		return exitFail
	}
	m, err := red.Message()
	if err != nil {
		fmt.Fprintf(stderr, "frameproof reduce: %v\n", err)
		return exitFail
	}
	if m == nil {
		fmt.Fprintln(stdout, "null")
		return exitPass
	}
	fmt.Fprintf(stdout, "%s\n", m.AppendJSON(nil))
	return exitPass
}
