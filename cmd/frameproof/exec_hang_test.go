package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/frameproof/frameproof/props/peer/procgroup"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A wrapper (`sh -c`) whose child holds the pipes must not hang conform:
// --timeout covers the hello wait and every request, and the kill takes
// the whole process group, the wrapper's child included.
func TestConformTimeoutKillsAWrappersChild(t *testing.T) {
	const hello = `{"hello":"frameproof-stdio","version":1,"implementation":"wrapped","implementationVersion":"0"}`
	for name, tc := range map[string]struct {
		script, want string
		code         int
	}{
		// no hello: the environment class, as in provider fuzz below
		"no hello":         {script: "sleep 600 & echo $! > %s; wait", want: "no hello line within 2s", code: exitIO},
		"hangs on request": {script: "echo '" + hello + "'; sleep 600 & echo $! > %s; wait", want: "not run", code: exitInconclusive},
	} {
		t.Run(name, func(t *testing.T) {
			script, pidFile := wrapperScript(t, tc.script)
			code, out := runUnhung(t, "conform", "--exec", "sh "+script, "--timeout", "2s", "--ops", "parse")
			assert.Equal(t, tc.code, code, out)
			assert.Contains(t, out, tc.want)
			assertDead(t, pidFile)
		})
	}
}

// The same for provider fuzz: --timeout bounds the adapter's hello, and
// the adapter's group dies with the run.
func TestProviderFuzzTimeoutKillsAWrappersChild(t *testing.T) {
	script, pidFile := wrapperScript(t, "sleep 600 & echo $! > %s; wait")
	code, out := runUnhung(t, "provider", "fuzz", "--wire", "anthropic-messages", "--exec", "sh "+script,
		"--seeds", "1", "--save", "0", "--timeout", "2s")
	assert.Equal(t, exitIO, code, out)
	assert.Contains(t, out, "no output within 2s")
	assertDead(t, pidFile)
}

// wrapperScript writes a shell script (%s in body: the pid file its
// background child writes) and returns its path and the pid file's.
func wrapperScript(t *testing.T, body string) (script, pidFile string) {
	dir := t.TempDir()
	pidFile = filepath.Join(dir, "child.pid")
	script = filepath.Join(dir, "wrapper.sh")
	require.NoError(t, os.WriteFile(script, []byte(strings.Replace(body, "%s", pidFile, 1)+"\n"), 0o644))
	return script, pidFile
}

// runUnhung runs the CLI and fails the test if it does not return.
func runUnhung(t *testing.T, args ...string) (int, string) {
	t.Helper()
	type result struct {
		code int
		out  string
	}
	done := make(chan result, 1)
	go func() {
		code, stdout, stderr := run(args...)
		done <- result{code, stdout + stderr}
	}()
	select {
	case r := <-done:
		return r.code, r.out
	case <-time.After(2 * time.Minute): // a hang detector, not a speed bound
		t.Fatalf("%q hung on a wrapper whose child holds the pipe", args)
		return 0, ""
	}
}

// assertDead checks that the process named in pidFile is gone.
func assertDead(t *testing.T, pidFile string) {
	t.Helper()
	data, err := os.ReadFile(pidFile)
	require.NoError(t, err)
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	require.NoError(t, err)
	assert.True(t, procgroup.EventuallyDead(pid), "the wrapper's child %d outlived the run", pid)
}
