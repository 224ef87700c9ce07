package main

import (
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every file argument is checked for its type before it is opened: a FIFO
// is refused at once (exit 4) instead of blocking open forever (issue 29:
// merge FIFO and repro --tape FIFO hung).
func TestFileArgumentsRefuseFIFOs(t *testing.T) {
	withSuite(t, fakeSuite{})
	fifo := filepath.Join(t.TempDir(), "fifo.json")
	if err := mkfifo(fifo); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	for name, args := range map[string][]string{
		"merge":         {"merge", fifo},
		"repro --tape":  {"repro", "--tape", fifo, "-q"},
		"recover":       {"recover", fifo},
		"recover apply": {"recover", "--apply", fifo},
	} {
		t.Run(name, func(t *testing.T) {
			r := runWithin(t, 5*time.Second, args...)
			assert.Equal(t, exitUsage, r.code, r.stderr)
			assert.Contains(t, r.stderr, "not a regular file (a FIFO)")
			assert.Empty(t, r.stdout)
		})
	}
}

// A directory given where a file is expected is refused the same way.
func TestFileArgumentsRefuseDirectories(t *testing.T) {
	withSuite(t, fakeSuite{})
	dir := t.TempDir()
	for _, args := range [][]string{{"merge", dir}, {"repro", "--tape", dir, "-q"}} {
		code, stdout, stderr := run(args...)
		assert.Equal(t, exitUsage, code, stderr)
		assert.Contains(t, stderr, "not a regular file (a directory)")
		assert.Empty(t, stdout)
	}
	_, err := os.Stat(dir)
	require.NoError(t, err)
}

// An output named on the command line that is a FIFO nobody reads is
// refused at once (exit 4, naming it) instead of blocking the command at
// its end (a review's finding: sim --junit FIFO hung); a FIFO with a
// reader, as in --junit >(cat), gets the whole output.
func TestOutputsRefuseAnUnreadFIFO(t *testing.T) {
	withSuite(t, fakeSuite{})
	dir := t.TempDir()
	fifo := filepath.Join(dir, "out.fifo")
	if err := mkfifo(fifo); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	for name, args := range map[string][]string{
		"sim --junit":   {"sim", "--scenario", "coin", "--seeds", "2", "--junit", fifo, "-q"},
		"repro --trace": {"repro", "1", "--scenario", "coin", "--backend", "memory", "--trace", fifo, "--html", filepath.Join(dir, "r.html"), "-q"},
		"repro --html":  {"repro", "1", "--scenario", "coin", "--backend", "memory", "--trace", filepath.Join(dir, "t.jsonl"), "--html", fifo, "-q"},
	} {
		t.Run(name, func(t *testing.T) {
			r := runWithin(t, 10*time.Second, args...)
			assert.Equal(t, exitIO, r.code, r.stderr)
			assert.Contains(t, r.stderr, fifo+": a FIFO with no reader")
		})
	}
	t.Run("with a reader", func(t *testing.T) {
		// The test holds the FIFO open at both ends, so the command's open
		// finds a reader and the reader sees end of file only once both
		// writers closed.
		rd, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0)
		require.NoError(t, err)
		defer rd.Close()
		wr, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		require.NoError(t, err)
		got := make(chan []byte, 1)
		go func() { b, _ := io.ReadAll(rd); got <- b }()
		r := runWithin(t, 10*time.Second, "sim", "--scenario", "coin", "--seeds", "2", "--junit", fifo, "-q")
		require.NoError(t, wr.Close())
		assert.Equal(t, exitPass, r.code, r.stderr)
		assert.Contains(t, string(<-got), "<testsuites")
	})
}

type runResult struct {
	code           int
	stdout, stderr string
}

// runWithin runs the command, failing the test if it has not returned
// within limit (a hang is the failure these tests look for).
func runWithin(t *testing.T, limit time.Duration, args ...string) runResult {
	t.Helper()
	done := make(chan runResult, 1)
	go func() {
		code, stdout, stderr := run(args...)
		done <- runResult{code, stdout, stderr}
	}()
	select {
	case r := <-done:
		return r
	case <-time.After(limit):
		t.Fatalf("%v blocked", args)
		return runResult{}
	}
}
