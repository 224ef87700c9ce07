//go:build linux

package env

import (
	"os"
	"path/filepath"
	"strconv"
)

// openElsewhere lists the other processes that hold the file described by
// id open, from /proc/PID/fd: a writer that takes no lock (pi appends
// without one) is seen here before anything changes the file. Processes
// whose fds cannot be read (another user's, or gone) are skipped: this is
// a guard that narrows a race, not a proof.
func openElsewhere(id os.FileInfo) ([]int, error) {
	procs, err := os.ReadDir("/proc")
	if err != nil {
		return nil, err
	}
	self := os.Getpid()
	var pids []int
	for _, p := range procs {
		pid, err := strconv.Atoi(p.Name())
		if err != nil || pid == self {
			continue
		}
		fds, err := os.ReadDir(filepath.Join("/proc", p.Name(), "fd"))
		if err != nil {
			continue
		}
		for _, fd := range fds {
			info, err := os.Stat(filepath.Join("/proc", p.Name(), "fd", fd.Name()))
			if err == nil && os.SameFile(info, id) {
				pids = append(pids, pid)
				break
			}
		}
	}
	return pids, nil
}
