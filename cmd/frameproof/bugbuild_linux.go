//go:build linux

package main

import (
	"os/exec"
	"syscall"
)

// dieWithParent has the kernel kill the rebuilt child if this wrapper dies
// (a SIGKILL of its process group, as CI cancellation sends, reaches only
// the wrapper: the child leads a group of its own).
func dieWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
}
