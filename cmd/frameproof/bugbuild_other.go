//go:build !linux

package main

import "os/exec"

// dieWithParent has no portable form outside Linux; there a killed wrapper
// leaves the rebuilt child running to its own end.
func dieWithParent(*exec.Cmd) {}
