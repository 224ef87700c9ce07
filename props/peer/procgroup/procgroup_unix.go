//go:build unix

package procgroup

import (
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
)

func own(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
}

func kill(cmd *exec.Cmd) {
	// The group id is the leader's pid (Setpgid with Pgid 0); a negative
	// pid addresses the group. Once the leader is reaped its pid number
	// stays reserved only while a member of its group lives; with none left
	// the number may already name an unrelated process and group, so the
	// group is signalled only while a member is seen.
	pgid := cmd.Process.Pid
	if errors.Is(cmd.Process.Signal(syscall.Signal(0)), os.ErrProcessDone) && !groupHasMembers(pgid) {
		return
	}
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	_ = cmd.Process.Kill()
}

// groupHasMembers reports whether a process in group pgid runs, reading
// /proc; where /proc cannot be read it cannot tell and says yes, so the
// leftovers are still killed.
func groupHasMembers(pgid int) bool {
	dir, err := os.ReadDir("/proc")
	if err != nil {
		return true
	}
	for _, e := range dir {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		if g, ok := processGroup("/proc/" + e.Name() + "/stat"); ok && g == pgid {
			return true
		}
	}
	return false
}

// processGroup reads the pgrp field of a /proc/PID/stat file: the fifth
// field, the third after the command name's closing parenthesis.
func processGroup(statPath string) (int, bool) {
	data, err := os.ReadFile(statPath)
	if err != nil {
		return 0, false
	}
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, false
	}
	fields := strings.Fields(s[i+1:])
	if len(fields) < 3 {
		return 0, false
	}
	g, err := strconv.Atoi(fields[2])
	return g, err == nil
}
