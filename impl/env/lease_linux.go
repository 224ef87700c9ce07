//go:build linux

package env

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// ErrOpenElsewhere is the cause of a refused lease: another process has the
// file open.
var ErrOpenElsewhere = errors.New("another process has it open")

// leaseWrite takes a write lease on f (fcntl F_SETLEASE F_WRLCK) and
// returns its release. A file another process holds open refuses it
// (ErrOpenElsewhere); a file system without leases, or a file this
// process may not lease, gets no lease and a no-op release (the caller's
// size checks are then the guard).
func leaseWrite(f *os.File) (func(), error) {
	fd := int(f.Fd())
	_, _, errno := syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_SETLEASE, syscall.F_WRLCK)
	switch errno {
	case 0:
		return func() {
			_, _, _ = syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_SETLEASE, syscall.F_UNLCK)
		}, nil
	case syscall.EAGAIN, syscall.EBUSY:
		return nil, ErrOpenElsewhere
	case syscall.EINVAL, syscall.ENOLCK, syscall.EACCES, syscall.EPERM:
		return func() {}, nil
	}
	return nil, fmt.Errorf("write lease: %w", errno)
}
