//go:build !unix

package procgroup

import "os/exec"

func own(*exec.Cmd) {}

func kill(cmd *exec.Cmd) { _ = cmd.Process.Kill() }
