//go:build linux

package main

import (
	"os/exec"
	"syscall"
)

// dieWithParent has the kernel kill the rebuilt child if this wrapper dies
// (a SIGKILL of its process group, as CI cancellation sends, reaches only
// the wrapper: the child leads a group of its own).
// The signal follows the thread that started the child, not the process:
// runChild keeps its goroutine on one OS thread from Start to Wait.
func dieWithParent(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
}
