// Package env is frameproof's determinism seam.
//
// Everything in impl/ that reads time, touches files, mints identifiers, waits
// or runs concurrently does so through the interfaces here. Production code
// gets the real implementations in this package; the simulator (sim/) and the
// fault injector (faults/) supply implementations in which exactly one actor
// runs at a time and every blocking point is a scheduling decision drawn from
// the run's choice source. Same choices, same trace, byte for byte.
//
// TestNoRawNondeterminism (seam_test.go) enforces that no other package under
// impl/ uses time.Now, math/rand, os file calls or go statements directly.
package env

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"time"
)

// Clock is the only source of wall time and sleeping in impl/.
type Clock interface {
	// Now returns the current time.
	Now() time.Time
	// Sleep blocks the calling actor for d. Under simulation it is a
	// scheduling point; the simulated clock advances instead of waiting.
	Sleep(d time.Duration)
}

// File is an open file handle that is written at its end.
type File interface {
	io.Writer
	// Sync makes every byte written so far durable (fsync).
	Sync() error
	Close() error
}

// FS is every file operation impl/ may perform. Paths are plain OS paths.
type FS interface {
	// ReadFile returns the whole content of path, in a buffer the caller
	// owns and may modify.
	ReadFile(path string) ([]byte, error)
	// ReadFileAtMost returns the whole content of path, or an error
	// wrapping ErrTooLarge, having read no more than limit+1 bytes, when
	// path holds more than limit bytes (a file that grows after its size
	// was checked is still bounded).
	ReadFileAtMost(path string, limit int64) ([]byte, error)
	// Create creates or truncates path and opens it for writing.
	Create(path string) (File, error)
	// OpenAppend opens path for appending, creating it when absent.
	OpenAppend(path string) (File, error)
	// Rename atomically replaces newPath with oldPath.
	Rename(oldPath, newPath string) error
	// Remove deletes path; removing an absent path is an error wrapping fs.ErrNotExist.
	Remove(path string) error
	// Exists reports whether path exists.
	Exists(path string) (bool, error)
	// MkdirAll creates dir and its parents.
	MkdirAll(dir string) error
	// SyncDir fsyncs a directory so that creates and renames in it are durable.
	SyncDir(dir string) error
}

// IDs mints identifiers.
type IDs interface {
	// NewID returns a fresh UUIDv7 string (lowercase, hyphenated).
	NewID() string
}

// Future is the completion of some asynchronous work.
type Future interface {
	// Wait blocks the calling actor until the future resolves and returns
	// its error. Under simulation it is a scheduling point.
	Wait() error
	// Done reports whether the future has resolved, without blocking.
	Done() bool
}

// Completer is a Future together with the right to resolve it.
type Completer interface {
	Future
	// Resolve settles the future with err (nil for success). Only the first
	// call has an effect.
	Resolve(err error)
}

// Executor runs concurrent work and creates futures.
type Executor interface {
	// Go runs fn as a new actor. name identifies the actor in traces.
	Go(name string, fn func())
	// NewFuture returns an unresolved future. name identifies it in traces.
	NewFuture(name string) Completer
}

// Env bundles the four seams so that constructors take one argument.
type Env struct {
	Clock    Clock
	FS       FS
	IDs      IDs
	Executor Executor
}

// Production returns the real-world environment: system clock, os files,
// crypto-random UUIDv7 ids and goroutines.
func Production() Env {
	clock := SystemClock{}
	return Env{Clock: clock, FS: OSFS{}, IDs: NewUUIDv7(clock, nil), Executor: Goroutines{}}
}

// ErrTooLarge is the cause ReadFileAtMost reports for a file over its limit.
var ErrTooLarge = errors.New("file too large")

// CheckAtMost returns b, or a path error wrapping ErrTooLarge when b holds
// more than limit bytes: the check every ReadFileAtMost ends with.
func CheckAtMost(path string, b []byte, limit int64) ([]byte, error) {
	if int64(len(b)) > limit {
		return nil, &fs.PathError{Op: "read", Path: path, Err: fmt.Errorf("%w: more than %d bytes", ErrTooLarge, limit)}
	}
	return b, nil
}

// readBound is how many bytes a ReadFileAtMost reads to tell a file of
// limit bytes from a longer one: limit+1, without overflowing.
func readBound(limit int64) int64 {
	if limit >= math.MaxInt64-1 {
		return math.MaxInt64
	}
	return limit + 1
}

// ReadAtMost reads path whole, through ReadFileAtMost when limit > 0 and
// without a bound otherwise.
func ReadAtMost(fsys FS, path string, limit int64) ([]byte, error) {
	if limit > 0 {
		return fsys.ReadFileAtMost(path, limit)
	}
	return fsys.ReadFile(path)
}
