//go:build linux

package procgroup

import (
	"bufio"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// startWrapper starts `sh -c` with a background grandchild that holds the
// stdout pipe, and returns the grandchild's pid.
func startWrapper(t *testing.T, group bool) (*exec.Cmd, int) {
	t.Helper()
	cmd := exec.Command("sh", "-c", "sleep 600 & echo $!; wait")
	if group {
		Own(cmd)
	}
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	line, err := bufio.NewReader(out).ReadString('\n')
	require.NoError(t, err)
	pid, err := strconv.Atoi(strings.TrimSpace(line))
	require.NoError(t, err)
	return cmd, pid
}

func TestKillTakesTheWholeGroup(t *testing.T) {
	cmd, grandchild := startWrapper(t, true)
	Kill(cmd)
	_ = cmd.Wait() // returns: the pipe's last holder is dead
	assert.True(t, EventuallyDead(grandchild), "the wrapper's child %d survived the group kill", grandchild)
	Kill(cmd) // again, after exit: harmless
}

// The contrast that makes the test above meaningful: killing only the
// wrapper leaves its child running with the pipe.
func TestKillingOnlyTheLeaderLeavesTheChild(t *testing.T) {
	cmd, grandchild := startWrapper(t, false)
	t.Cleanup(func() { _ = syscall.Kill(grandchild, syscall.SIGKILL) })
	require.NoError(t, cmd.Process.Kill())
	time.Sleep(200 * time.Millisecond)
	assert.True(t, Alive(grandchild), "the child died with its parent; the group test proves nothing here")
}

// The usual order in peer and provider Close: the leader exits and is
// reaped first, then Kill ends what it left running in its group.
func TestKillAfterReapStillTakesTheLeftovers(t *testing.T) {
	cmd := exec.Command("sh", "-c", "sleep 600 >/dev/null 2>&1 & echo $!")
	Own(cmd)
	out, err := cmd.Output()
	require.NoError(t, err, "the leader exits on its own and is reaped")
	pid, err := strconv.Atoi(strings.TrimSpace(string(out)))
	require.NoError(t, err)
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
	require.True(t, groupHasMembers(cmd.Process.Pid), "the sleeper keeps the group")
	Kill(cmd)
	assert.True(t, EventuallyDead(pid), "the leftover %d survived a Kill after reap", pid)
}

// With the leader reaped and no member left, the group's number may be
// reused by an unrelated process, so Kill must not signal it.
func TestAReapedEmptyGroupIsNotSignalled(t *testing.T) {
	cmd := exec.Command("true")
	Own(cmd)
	require.NoError(t, cmd.Run())
	assert.False(t, groupHasMembers(cmd.Process.Pid))
	g, ok := processGroup("/proc/self/stat")
	require.True(t, ok)
	assert.Equal(t, syscall.Getpgrp(), g, "processGroup reads the pgrp field")
	assert.True(t, groupHasMembers(syscall.Getpgrp()), "this test's own group has a member")
}
