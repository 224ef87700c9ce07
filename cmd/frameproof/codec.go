package main

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

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
// rest of it is read. A line takes its own size in memory once (a long
// line of a regular file is measured, then read again into a buffer of
// its size) or, from a pipe, twice for a moment (its pieces, then the line
// they are joined into); never a doubling buffer plus a copy.
func forEachLine(r io.Reader, maxLine int, fn func(n int, line string) error) error {
	lr := newLineReader(r, maxLine)
	for n := 1; ; n++ {
		line, err := lr.next(n)
		if errors.Is(err, errLineTooLong) {
			return err
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

// lineReader reads lines of at most max bytes (the newline not counted).
type lineReader struct {
	r   io.Reader
	br  *bufio.Reader
	max int
	// file is set when r is a regular file: a long line is measured
	// first, then read again, at off, into a buffer of its size.
	file *os.File
	off  int64 // r's offset of br's next byte (with file)
}

func newLineReader(r io.Reader, max int) *lineReader {
	l := &lineReader{r: r, br: bufio.NewReaderSize(r, 1<<16), max: max}
	if f, ok := r.(*os.File); ok {
		if info, err := f.Stat(); err == nil && info.Mode().IsRegular() {
			if off, err := f.Seek(0, io.SeekCurrent); err == nil {
				l.file, l.off = f, off
			}
		}
	}
	return l
}

// tooLong reports whether a line of size bytes so far, ending with chunk,
// is over the bound; the newline is not counted, and nothing overflows.
func (l *lineReader) tooLong(size int, chunk []byte) bool {
	if len(chunk) > 0 && chunk[len(chunk)-1] == '\n' {
		size--
	}
	return size > l.max
}

// next returns line n without its newline (and a "\r" before it), with
// io.EOF at the end of the input (the line then may be a last line without
// a newline) or the read error that ended it.
func (l *lineReader) next(n int) (string, error) {
	start := l.off
	chunk, err := l.br.ReadSlice('\n')
	l.off += int64(len(chunk))
	size := len(chunk)
	if l.tooLong(size, chunk) {
		return "", fmt.Errorf("line %d: %w: more than --max-line %d bytes", n, errLineTooLong, l.max)
	}
	if !errors.Is(err, bufio.ErrBufferFull) {
		return trimNewline(string(chunk)), err
	}
	var parts [][]byte
	if l.file == nil {
		parts = append(parts, bytes.Clone(chunk))
	}
	for errors.Is(err, bufio.ErrBufferFull) {
		chunk, err = l.br.ReadSlice('\n')
		l.off += int64(len(chunk))
		size += len(chunk)
		if l.tooLong(size, chunk) {
			return "", fmt.Errorf("line %d: %w: more than --max-line %d bytes", n, errLineTooLong, l.max)
		}
		if l.file == nil {
			parts = append(parts, bytes.Clone(chunk))
		}
	}
	if err != nil && !errors.Is(err, io.EOF) {
		return "", err
	}
	var b strings.Builder
	b.Grow(size)
	if l.file == nil {
		for i, p := range parts {
			b.Write(p)
			parts[i] = nil
		}
		return trimNewline(b.String()), err
	}
	// Read the measured line again, straight into its buffer.
	if _, serr := l.file.Seek(start, io.SeekStart); serr != nil {
		return "", serr
	}
	l.br.Reset(l.file)
	if _, cerr := io.CopyN(&b, l.br, int64(size)); cerr != nil {
		return "", fmt.Errorf("line %d: read again: %w", n, cerr)
	}
	return trimNewline(b.String()), err
}

// trimNewline drops a final "\n" and a "\r" before it, without copying.
func trimNewline(line string) string {
	if strings.HasSuffix(line, "\n") {
		line = strings.TrimSuffix(line[:len(line)-1], "\r")
	}
	return line
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
