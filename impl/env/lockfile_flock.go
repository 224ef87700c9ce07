//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package env

import (
	"errors"
	"os"
	"syscall"
)

// lockExclusive takes f's flock(2) exclusive lock without waiting.
func lockExclusive(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		switch {
		case err == nil:
			return nil
		case errors.Is(err, syscall.EINTR):
			continue
		case errors.Is(err, syscall.EWOULDBLOCK):
			return ErrLocked
		}
		return err
	}
}
