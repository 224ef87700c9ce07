package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
)

// Plumbing every subcommand shares: checked output, flag parsing with one
// meaning for --help and bad values, and artifact paths validated before any
// work starts.

// checkedWriter records the first write error. dispatch wraps stdout in one
// and turns a recorded error into exit 4: output that could not be written
// is never a success, however the subcommand reported it.
type checkedWriter struct {
	mu  sync.Mutex
	w   io.Writer
	err error
}

func (c *checkedWriter) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return 0, c.err
	}
	n, err := c.w.Write(p)
	if err == nil && n < len(p) {
		err = io.ErrShortWrite
	}
	if err != nil {
		c.err = err
	}
	return n, err
}

// Err returns the first write error, if any.
func (c *checkedWriter) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// outputCode combines a subcommand's exit code with the fate of its output:
// an I/O error turns a pass or an inconclusive run into exit 4. A failure
// found (exit 1) and a usage error (exit 2) keep their code: the gate fails
// either way, and the finding is the more useful fact.
func outputCode(code int, ioErr error) int {
	if ioErr == nil || code == exitFail || code == exitUsage || code == exitIO {
		return code
	}
	return exitIO
}

// parseFlags parses args into fs and returns -1 to go on, or the exit code
// to stop with: 0 after --help (full help on stdout), 2 after a bad flag or
// value (one line on stderr). help prints what follows the flag list (may
// be nil). The flag package's own messages are replaced by these.
func parseFlags(fs *flag.FlagSet, args []string, usageLine string, help func(io.Writer), stdout, stderr io.Writer) int {
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	err := fs.Parse(args)
	switch {
	case err == nil:
		return -1
	case errors.Is(err, flag.ErrHelp):
		printHelp(fs, usageLine, help, stdout)
		return exitPass
	default:
		return usageError(stderr, fs.Name(), "%v (see frameproof %s --help)", err, fs.Name())
	}
}

// printHelp prints the usage line, the flags and the command's own text.
func printHelp(fs *flag.FlagSet, usageLine string, help func(io.Writer), w io.Writer) {
	fmt.Fprintln(w, usageLine)
	fmt.Fprintln(w)
	fmt.Fprintln(w, "flags:")
	fs.SetOutput(w)
	fs.PrintDefaults()
	fs.SetOutput(io.Discard)
	if help != nil {
		fmt.Fprintln(w)
		help(w)
	}
	printExits(w, fs.Name())
}

// usageError prints "frameproof WHO: message" and returns exit 2.
func usageError(stderr io.Writer, who, format string, a ...any) int {
	fmt.Fprintf(stderr, "frameproof %s: %s\n", who, fmt.Sprintf(format, a...))
	return exitUsage
}

// ioError prints "frameproof WHO: message" and returns exit 4.
func ioError(stderr io.Writer, who, format string, a ...any) int {
	fmt.Fprintf(stderr, "frameproof %s: %s\n", who, fmt.Sprintf(format, a...))
	return exitIO
}

// noArgs returns -1 when fs took every argument, else a usage error.
func noArgs(fs *flag.FlagSet, stderr io.Writer) int {
	if fs.NArg() == 0 {
		return -1
	}
	return usageError(stderr, fs.Name(), "unexpected argument %q", fs.Arg(0))
}

// trimPrefix drops a library error's own package prefix ("provider: ")
// when the CLI's message already names it, so no message reads
// "frameproof provider: provider: ...".
func trimPrefix(err error, prefix string) string {
	return strings.TrimPrefix(err.Error(), prefix+": ")
}

// checkOutputFile fails unless path can be created or overwritten: its
// directory exists and takes new files, and path is not a directory. It
// leaves no file behind, so a campaign that fails early writes nothing.
func checkOutputFile(flagName, path string) error {
	if path == "" || path == "-" {
		return nil
	}
	if info, err := os.Stat(path); err == nil && info.IsDir() {
		return fmt.Errorf("%s %s: is a directory", flagName, path)
	}
	dir := filepath.Dir(path)
	info, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("%s %s: directory %s: %w", flagName, path, dir, unwrapPath(err))
	}
	if !info.IsDir() {
		return fmt.Errorf("%s %s: %s is not a directory", flagName, path, dir)
	}
	if err := probeDir(dir); err != nil {
		return fmt.Errorf("%s %s: %w", flagName, path, err)
	}
	return nil
}

// checkOutputDir creates dir (and its parents) if needed and checks that
// it takes new files.
func checkOutputDir(flagName, dir string) error {
	if dir == "" {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("%s %s: %w", flagName, dir, unwrapPath(err))
	}
	if err := probeDir(dir); err != nil {
		return fmt.Errorf("%s %s: %w", flagName, dir, err)
	}
	return nil
}

// checkCreatableDir checks, without creating anything, that dir either is
// a directory that takes new files or could be created: its nearest
// existing ancestor is a directory that takes new files.
func checkCreatableDir(flagName, dir string) error {
	if dir == "" {
		return nil
	}
	for probe := filepath.Clean(dir); ; probe = filepath.Dir(probe) {
		info, err := os.Stat(probe)
		switch {
		case err == nil && !info.IsDir():
			return fmt.Errorf("%s %s: %s is not a directory", flagName, dir, probe)
		case err == nil:
			if err := probeDir(probe); err != nil {
				return fmt.Errorf("%s %s: %w", flagName, dir, err)
			}
			return nil
		case !errors.Is(err, os.ErrNotExist) || filepath.Dir(probe) == probe:
			return fmt.Errorf("%s %s: %w", flagName, dir, unwrapPath(err))
		}
	}
}

// probeDir creates and removes a file in dir.
func probeDir(dir string) error {
	f, err := os.CreateTemp(dir, ".frameproof-probe-*")
	if err != nil {
		return fmt.Errorf("cannot create files in %s: %w", dir, unwrapPath(err))
	}
	name := f.Name()
	cerr := f.Close()
	rerr := os.Remove(name)
	return errors.Join(cerr, rerr)
}

// unwrapPath strips *PathError's repetition of the path.
func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// interruptContext is cancelled by SIGINT or SIGTERM. Commands whose children
// run in their own process group (where a terminal's Ctrl-C does not reach
// them) pass it down, so the children are killed as a group on the way out.
func interruptContext() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}

// createOutput creates (or truncates) path for an output the user named.
// It opens without blocking, so a FIFO nobody reads is refused at once
// instead of hanging the command at its end; a FIFO with a reader, as in
// --junit >(cat), is written as usual.
func createOutput(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC|syscall.O_NONBLOCK, 0o644)
	if errors.Is(err, syscall.ENXIO) {
		return nil, &os.PathError{Op: "open", Path: path, Err: errNoReader}
	}
	return f, err
}

// errNoReader is open's ENXIO on an output: a FIFO no process reads (or a
// socket, which open(2) never opens).
var errNoReader = errors.New("a FIFO with no reader, or a socket")

// writeOutput is os.WriteFile through createOutput: a close that fails
// is an error, since the file may not hold what was written.
func writeOutput(path string, data []byte) error {
	f, err := createOutput(path)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// writeFileAtomic replaces path with data: a temporary file beside it,
// synced, then renamed over it, so a reader sees the old bytes or the new,
// never a mix, and a failed write leaves the old file.
func writeFileAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".frameproof-write-*")
	if err != nil {
		return unwrapPath(err)
	}
	name := tmp.Name()
	defer os.Remove(name) // after a successful rename there is nothing to remove
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(name, 0o644)
	}
	if err == nil {
		err = os.Rename(name, path)
	}
	return err
}

// openRegular opens path for reading after checking, with os.Stat, that it
// names a regular file (links followed): a FIFO would block open forever,
// and a directory or device is no file argument. Every file argument of
// every subcommand is opened through it. The open itself does not block
// (O_NONBLOCK), and the opened file is checked again, so a path swapped for
// a FIFO after the stat is refused too. The exit code that goes with an
// error follows the exit table: 2 for a file that is missing or not a
// regular file (a wrong argument), 4 for one that cannot be opened. label
// prefixes every message.
func openRegular(path, label string) (*os.File, fs.FileInfo, int, error) {
	info, err := os.Stat(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil, nil, exitUsage, fmt.Errorf("%s: no such file", label)
	case err != nil:
		return nil, nil, exitIO, fmt.Errorf("%s: %w", label, unwrapPath(err))
	case !info.Mode().IsRegular():
		return nil, nil, exitUsage, fmt.Errorf("%s: %w", label, notRegular(info))
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err == nil {
		info, err = f.Stat()
	}
	switch {
	case err != nil:
		if f != nil {
			_ = f.Close()
		}
		return nil, nil, exitIO, fmt.Errorf("%s: %w", label, unwrapPath(err))
	case !info.Mode().IsRegular(): // swapped for something else since the stat
		_ = f.Close()
		return nil, nil, exitUsage, fmt.Errorf("%s: %w", label, notRegular(info))
	}
	return f, info, -1, nil
}

// notRegular is openRegular's refusal of a file that is not regular.
func notRegular(info fs.FileInfo) error {
	kind := "a " + info.Mode().Type().String()
	switch t := info.Mode().Type(); {
	case t&fs.ModeNamedPipe != 0:
		kind = "a FIFO"
	case t&fs.ModeDir != 0:
		kind = "a directory"
	case t&fs.ModeSocket != 0:
		kind = "a socket"
	case t&fs.ModeDevice != 0:
		kind = "a device"
	}
	return fmt.Errorf("not a regular file (%s)", kind)
}

// readBounded reads at most maxBytes of path, a regular file
// (openRegular). The exit code that goes with an error is 2 for a file
// that is missing or larger than the bound (a wrong argument), 4 for one
// that is not a regular file or cannot be read. label prefixes every
// message ("--tape x.json", or the path itself); limitFlag names the
// bound's flag. The buffer is allocated once at the file's size, so a
// read's peak memory is the file, not a multiple of it.
func readBounded(path, label, limitFlag string, maxBytes int64) ([]byte, int, error) {
	f, info, code, err := openRegular(path, label)
	if err != nil {
		return nil, code, err
	}
	defer f.Close()
	tooLarge := fmt.Errorf("%s: larger than %s %d bytes", label, limitFlag, maxBytes)
	if info.Size() > maxBytes {
		return nil, exitUsage, tooLarge
	}
	data, err := readAtMost(f, info.Size(), maxBytes)
	if errors.Is(err, errTooLarge) {
		return nil, exitUsage, tooLarge
	}
	if err != nil {
		return nil, exitIO, fmt.Errorf("%s: %w", label, unwrapPath(err))
	}
	return data, -1, nil
}

// errTooLarge is readAtMost's error for input over its bound.
var errTooLarge = errors.New("larger than the bound")

// readAtMost reads r to its end, failing with errTooLarge once it holds
// more than maxBytes, having read at most one byte past them. sizeHint is
// the expected size (a regular file's, or 0): the buffer is allocated once
// at that size, so a file read takes its size in memory and no more;
// input of unknown size is read in chunks that are joined once at the
// end, never grown by repeated doubling. No arithmetic overflows at
// maxBytes = math.MaxInt64.
func readAtMost(r io.Reader, sizeHint, maxBytes int64) ([]byte, error) {
	const chunk = 1 << 20
	sizeHint = max(min(sizeHint, maxBytes), 0)
	// The first buffer takes the expected size plus one byte: reading that
	// byte tells the end of the file from a file that grew.
	firstCap := chunk
	if sizeHint > 0 {
		firstCap = int(min(sizeHint, math.MaxInt-1)) + 1
	}
	var parts [][]byte
	total := int64(0)
	buf := make([]byte, 0, firstCap)
	for {
		if len(buf) == cap(buf) {
			parts = append(parts, buf)
			buf = make([]byte, 0, chunk)
		}
		// Never ask for more than one byte past the bound.
		want := cap(buf) - len(buf)
		if left := maxBytes - total; left < int64(want) {
			want = int(left) + 1
		}
		n, err := r.Read(buf[len(buf) : len(buf)+want])
		buf = buf[:len(buf)+n]
		total += int64(n)
		if total > maxBytes {
			return nil, errTooLarge
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	if len(parts) == 0 {
		return buf, nil
	}
	parts = append(parts, buf)
	out := make([]byte, 0, total)
	for i, p := range parts {
		out = append(out, p...)
		parts[i] = nil
	}
	return out, nil
}

// readStdinString reads r (stdin) whole into a string, failing with
// errTooLarge once it holds more than maxBytes. A regular file is read
// straight into a buffer of its size (the string is that buffer, not a
// copy of it); a pipe goes through readAtMost's chunks, joined once.
func readStdinString(r io.Reader, maxBytes int64) (string, error) {
	f, ok := r.(*os.File)
	if !ok {
		b, err := readAtMost(r, 0, maxBytes)
		return string(b), err
	}
	info, err := f.Stat()
	off, serr := f.Seek(0, io.SeekCurrent)
	if err != nil || serr != nil || !info.Mode().IsRegular() {
		b, err := readAtMost(r, 0, maxBytes)
		return string(b), err
	}
	size := max(info.Size()-off, 0)
	if size > maxBytes {
		return "", errTooLarge
	}
	var b strings.Builder
	b.Grow(int(size) + 1) // the byte past the end tells a file that grew
	if _, err := io.Copy(&b, io.LimitReader(f, min(maxBytes, math.MaxInt64-1)+1)); err != nil {
		return "", err
	}
	if int64(b.Len()) > maxBytes {
		return "", errTooLarge
	}
	return b.String(), nil
}
