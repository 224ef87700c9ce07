//go:build !frameproofbugs

package main

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// In the default build `sim --bug` rebuilds frameproof with the bug
// switches and runs it: the verdict, the output and the exit code are the
// rebuilt binary's, and the repro line it prints works the same way.
func TestSimBugRunsTheBugBuild(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go toolchain on PATH: the bug build cannot be made here")
	}
	code, stdout, stderr := run("sim", "--scenario", "append-order", "--backend", "memory", "--seeds", "3",
		"--bug", "settle-without-delete", "--max-failures", "1", "--shrink-attempts", "5", "--tape-dir", "", "-q")
	require.Equal(t, exitFail, code, stdout+stderr)
	assert.Contains(t, stderr, "building frameproof with -tags frameproofbugs")
	m := reproLine.FindAllStringSubmatch(stdout, -1)
	require.Len(t, m, 1, stdout)
	assert.Equal(t, "settle-without-delete", m[0][5])

	dir := t.TempDir()
	repro := append(strings.Fields(m[0][1])[1:], "--trace", dir+"/t.jsonl", "--html", dir+"/r.html", "-q")
	code, out, errs := run(repro...)
	require.Equal(t, exitFail, code, out+errs)
	assert.Contains(t, out, "verdict: FAIL (")
}

// Without a toolchain the command exits 4 (the environment lacks what --bug
// needs; the flags are fine: issue 29 class 8) with the one line to run
// instead.
func TestSimBugWithoutToolchainNamesTheCommand(t *testing.T) {
	t.Setenv("PATH", "")
	code, stdout, stderr := run("sim", "--seeds", "2", "--bug", "skip-drain", "--json", "--tape-dir", "")
	require.Equal(t, exitCode(classEnvironment), code, stdout+stderr)
	assert.Empty(t, stdout)
	assert.Equal(t, 1, strings.Count(stderr, "\n"), stderr)
	assert.Contains(t, stderr, "no go toolchain on PATH")
	assert.Contains(t, stderr, "go run -tags frameproofbugs ./cmd/frameproof sim --seeds 2 --bug skip-drain --json --tape-dir ''")
}

// The module path the bug build looks for is the one go.mod declares.
func TestBugBuildFindsThisModule(t *testing.T) {
	assert.True(t, declaresModule("../../go.mod"), "go.mod does not declare %s", modulePath)
	wd, err := os.Getwd()
	require.NoError(t, err)
	root, ok := moduleRootAbove(wd)
	require.True(t, ok)
	assert.FileExists(t, root+"/cmd/frameproof/main.go")
	_, ok = moduleRootAbove(t.TempDir())
	assert.False(t, ok)
}

// The first interrupt reaches the child as SIGINT (a campaign reports what
// it ran); the next kills its group. Exercised on a shell child.
func TestBugBuildChildInterrupts(t *testing.T) {
	for name, tc := range map[string]struct {
		script  string
		signals int
		want    int
	}{
		"first interrupt is passed on": {`trap 'echo got-int; exit 3' INT; echo ready; while :; do sleep 0.05; done`, 1, exitInconclusive},
		"second interrupt kills":       {`trap '' INT; echo ready; while :; do sleep 0.05; done`, 2, exitInconclusive},
		"exit code passes through":     {`echo ready; exit 7`, 0, 7},
	} {
		t.Run(name, func(t *testing.T) {
			sigs := make(chan os.Signal, 2)
			old := simSignals
			simSignals = func() (<-chan os.Signal, func()) { return sigs, func() {} }
			t.Cleanup(func() { simSignals = old })
			out := &readyWriter{ready: make(chan struct{})}
			var errb bytes.Buffer
			done := make(chan int, 1)
			go func() { done <- runChild("sh", []string{"-c", tc.script}, out, &errb) }()
			select {
			case <-out.ready:
			case <-time.After(time.Minute): // a hang detector, not a speed bound
				t.Fatal("the child never started")
			}
			for range tc.signals {
				sigs <- syscall.SIGINT
				time.Sleep(100 * time.Millisecond)
			}
			select {
			case code := <-done:
				assert.Equal(t, tc.want, code, errb.String())
			case <-time.After(time.Minute):
				t.Fatal("runChild did not return")
			}
			if tc.signals == 1 {
				assert.Contains(t, out.String(), "got-int")
			}
		})
	}
}

// readyWriter collects output and closes ready on the first line "ready".
type readyWriter struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	ready chan struct{}
	once  sync.Once
}

func (w *readyWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n, err := w.buf.Write(p)
	if strings.Contains(w.buf.String(), "ready\n") {
		w.once.Do(func() { close(w.ready) })
	}
	return n, err
}

func (w *readyWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// The rebuilt binary goes where FRAMEPROOF_BUG_BUILD_DIR says.
func TestBugBuildDirFollowsTheVariable(t *testing.T) {
	parent := t.TempDir()
	t.Setenv(bugBuildDirEnv, parent)
	dir, err := bugBuildDir()
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(dir, parent+string(os.PathSeparator)), dir)
}

// A binary that cannot be executed (a noexec temporary directory) is an
// environment error that names the way out.
func TestBugBuildThatCannotRunNamesTheWayOut(t *testing.T) {
	bin := t.TempDir() + "/frameproof"
	require.NoError(t, os.WriteFile(bin, []byte("not a program"), 0o644))
	var stdout, stderr bytes.Buffer
	code := runChild(bin, []string{"sim", "--bug", "skip-drain"}, &stdout, &stderr)
	assert.Equal(t, exitIO, code)
	assert.Contains(t, stderr.String(), bugBuildDirEnv)
	assert.Contains(t, stderr.String(), "go run -tags frameproofbugs ./cmd/frameproof sim --bug skip-drain")
}
