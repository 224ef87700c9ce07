package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/frameproof/frameproof/props/peer"
	"github.com/frameproof/frameproof/props/peer/procgroup"
	"github.com/frameproof/frameproof/sim/subject"
)

// A pi-subject campaign whose runs pass but leave an order pi can take
// unreached is inconclusive (exit 3), naming the orders, as the in-process
// campaign's race coverage is; an order pi cannot take does not count.
func TestSimSubjectPiUnreachedOrdersAreInconclusive(t *testing.T) {
	peer.Require(t, peer.PiAgentCore)
	code, stdout, stderr := run("sim", "--subject", "pi", "--scenario", "abort", "--session", "memory", "--seeds", "1", "-q")
	require.Equal(t, exitInconclusive, code, stdout+stderr)
	assert.Contains(t, stdout, "verdict: inconclusive (1 runs passed; orders no run took: ")
	assert.NotContains(t, stdout, "update-vs-commit/commit-first", "an order pi cannot take is not asked for")
}

// A driver that cannot start (here one that exits before its hello, as a
// broken node_modules makes it) is the environment failing, not pi: exit 4
// naming it, not a FAIL counted against pi (a review found exit 1).
func TestSimSubjectPiDriverWithoutHelloIsEnvironment(t *testing.T) {
	peer.Require(t, peer.PiAgentCore)
	t.Setenv("FRAMEPROOF_SUBJECT_PLANT", "no-hello")
	code, stdout, stderr := run("sim", "--subject", "pi", "--scenario", "abort", "--session", "memory", "--seeds", "1", "-q")
	require.Equal(t, exitIO, code, stdout+stderr)
	assert.Contains(t, stderr, "subject unavailable: pisubject: hello")
	assert.Contains(t, stderr, "planted: exiting before the hello")
	assert.NotContains(t, stdout, "FAIL")
}

// SIGINT or SIGTERM to `sim --subject pi` kills the running driver's
// process group and ends the campaign: exit 3, "interrupted", and no node
// left running the subject driver.
func TestSimSubjectPiInterruptedLeavesNoDriver(t *testing.T) {
	peer.Require(t, peer.PiAgentCore)
	exe, err := os.Executable()
	require.NoError(t, err)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			cmd := exec.Command(exe, "sim", "--subject", "pi", "--scenario", "append-race", "--session", "memory", "--seeds", "1000")
			cmd.Env = append(os.Environ(), "FRAMEPROOF_AS_CLI=fake-suite")
			var out bytes.Buffer
			cmd.Stdout = &out
			progress, err := cmd.StderrPipe()
			require.NoError(t, err)
			require.NoError(t, cmd.Start())
			defer func() { _ = cmd.Process.Kill() }()
			// The first finished run's progress line: a driver has run, and
			// the next one is starting or running.
			line, err := bufio.NewReader(progress).ReadString('\n')
			require.NoError(t, err, "no progress line")
			require.Contains(t, line, "append-race/memory seed")
			var drivers []int
			require.Eventually(t, func() bool { drivers = driversOf(cmd.Process.Pid); return len(drivers) > 0 },
				time.Minute, 20*time.Millisecond, "the next run's driver never started")
			require.NoError(t, cmd.Process.Signal(sig))
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case <-done:
			case <-time.After(time.Minute): // a hang detector, not a speed bound
				t.Fatal("frameproof did not stop after the signal")
			}
			assert.Equal(t, exitInconclusive, cmd.ProcessState.ExitCode(), out.String())
			assert.Contains(t, out.String(), "verdict: interrupted")
			for _, pid := range drivers {
				assert.True(t, procgroup.EventuallyDead(pid), "the subject driver %d outlived frameproof", pid)
			}
		})
	}
}

// driversOf lists the live children of pid that run pi's subject driver
// (their parent read from /proc/PID/stat while pid is alive).
func driversOf(parent int) []int {
	var pids []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || !strings.Contains(string(cmdline), "subject-driver.mjs") {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// after "(comm)": state, then ppid
		fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
		if len(fields) > 1 && fields[1] == strconv.Itoa(parent) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// `sim --subject lane` runs the subject campaign on impl/lane in process,
// through the same boundary as pi's harness: a passing campaign that
// reaches every order exits 0 and prints the coverage and the verdict.
func TestSimSubjectLanePasses(t *testing.T) {
	code, stdout, stderr := run("sim", "--subject", "lane", "--seeds", "4", "-q")
	require.Equal(t, exitPass, code, stdout+stderr)
	runs := 4 * len(subject.Scenarios) * len(subject.Sessions) // every cell's four seeds
	assert.Contains(t, stdout, fmt.Sprintf("race coverage on lane (%d runs, ", runs))
	assert.Contains(t, stdout, fmt.Sprintf("verdict: pass (%d runs)", runs))
}

// `sim --subject lane@VERSION` runs impl/lane and the model under a pinned
// pi release's options (its stored retry-delay cap, its pi-ai's error
// patterns), as `--subject pi@VERSION` runs that release.
func TestSimSubjectLaneRelease(t *testing.T) {
	code, stdout, stderr := run("sim", "--subject", "lane@0.87.1", "--seeds", "4", "-q")
	require.Equal(t, exitPass, code, stdout+stderr)
	runs := 4 * len(subject.Scenarios) * len(subject.Sessions)
	assert.Contains(t, stdout, fmt.Sprintf("race coverage on lane@0.87.1 (%d runs, ", runs))
	assert.Contains(t, stdout, fmt.Sprintf("verdict: pass (%d runs)", runs))
}
