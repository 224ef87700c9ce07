// Package procgroup runs a child process in its own process group and
// kills the whole group, so that a wrapper (`sh -c`, npx, a script that
// starts the real adapter) cannot leave a grandchild running that holds
// the pipes and blocks every read of them.
package procgroup

import (
	"context"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// WaitDelay bounds how long cmd.Wait waits for the child's output pipes
// to close after the child has exited (a descendant that left the group
// could hold them forever).
const WaitDelay = 2 * time.Second

// Own makes cmd (not yet started) the leader of a new process group and
// bounds its Wait by WaitDelay.
func Own(cmd *exec.Cmd) {
	own(cmd)
	cmd.WaitDelay = WaitDelay
}

// CommandContext is exec.CommandContext with the child in its own process
// group, killed as a group when ctx is done.
func CommandContext(ctx context.Context, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, name, args...)
	Own(cmd)
	cmd.Cancel = func() error { Kill(cmd); return nil }
	return cmd
}

// Kill sends SIGKILL to cmd's whole process group (only cmd itself where
// process groups do not exist). It is safe to call more than once and
// after the process has exited.
func Kill(cmd *exec.Cmd) {
	if cmd.Process == nil {
		return
	}
	kill(cmd)
}

// Alive reports whether pid runs (a zombie has exited: not alive). It
// reads /proc; where /proc does not exist it cannot tell and says no. Tests
// use it to prove a killed group left no process behind.
func Alive(pid int) bool {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}

// EventuallyDead waits up to 5 s for pid to stop running.
func EventuallyDead(pid int) bool {
	for range 100 {
		if !Alive(pid) {
			return true
		}
		time.Sleep(50 * time.Millisecond)
	}
	return false
}
