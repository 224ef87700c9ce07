//go:build unix

package bench

import (
	"fmt"
	"syscall"
	"time"
)

// processCPU is the CPU time (user + system) of every thread of this
// process so far, the Go side's counterpart of node's process.cpuUsage():
// the garbage collector's workers count, as V8's helpers do in node.
func processCPU() (time.Duration, error) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, fmt.Errorf("bench: getrusage: %w", err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), nil
}
