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
