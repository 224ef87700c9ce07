package main

import (
	"os"
	"path/filepath"
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
			type result struct {
				code           int
				stdout, stderr string
			}
			done := make(chan result, 1)
			go func() {
				code, stdout, stderr := run(args...)
				done <- result{code, stdout, stderr}
			}()
			select {
			case r := <-done:
				assert.Equal(t, exitUsage, r.code, r.stderr)
				assert.Contains(t, r.stderr, "not a regular file (a FIFO)")
				assert.Empty(t, r.stdout)
			case <-time.After(5 * time.Second):
				t.Fatalf("%v blocked on the FIFO", args)
			}
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
