package env

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// ErrLocked is the cause LockFile reports when another process holds the
// file's lock.
var ErrLocked = errors.New("locked by another process")

// LockedFile is a file opened for writing and held under an exclusive
// advisory lock (flock where the system has it) until Close. It pins the
// file's identity (device and inode) at lock time, so a caller about to
// change the file can check that the path still names it and that nobody
// appended to it: a writer that takes no lock (pi appends without one) is
// not stopped by the lock, only caught by Check.
type LockedFile struct {
	path string
	f    *os.File
	id   fs.FileInfo
}

// LockFile opens path (which must exist) for writing and takes its
// exclusive lock without waiting: a lock another process holds fails with
// an error wrapping ErrLocked.
func LockFile(path string) (*LockedFile, error) {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return nil, fmt.Errorf("env: lock %s: %w", path, err)
	}
	if err := lockExclusive(f); err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("env: lock %s: %w", path, err)
	}
	id, err := f.Stat()
	if err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("env: lock %s: %w", path, err)
	}
	l := &LockedFile{path: path, f: f, id: id}
	if err := l.samePath(); err != nil {
		_ = f.Close()
		return nil, err
	}
	return l, nil
}

// samePath fails unless path still names the locked file.
func (l *LockedFile) samePath() error {
	now, err := os.Stat(l.path)
	if err != nil {
		return fmt.Errorf("env: %s: %w", l.path, err)
	}
	if !os.SameFile(now, l.id) {
		return fmt.Errorf("env: %s: replaced by another file (another process renamed over it)", l.path)
	}
	return nil
}

// Size returns the locked file's size.
func (l *LockedFile) Size() (int64, error) {
	info, err := l.f.Stat()
	if err != nil {
		return 0, fmt.Errorf("env: %s: %w", l.path, err)
	}
	return info.Size(), nil
}

// Check fails unless the path still names the locked file (same device
// and inode) and the file holds exactly size bytes.
func (l *LockedFile) Check(size int64) error {
	if err := l.samePath(); err != nil {
		return err
	}
	info, err := l.f.Stat()
	if err != nil {
		return fmt.Errorf("env: %s: %w", l.path, err)
	}
	if info.Size() != size {
		return fmt.Errorf("env: %s: holds %d bytes, not the %d read: another process is writing it", l.path, info.Size(), size)
	}
	return nil
}

// Truncate cuts the locked file, which must hold exactly expect bytes, to
// size in place and fsyncs it: the inode stays, so a process holding the
// file open keeps writing into it. Where the system has file leases
// (Linux), the size check and the cut happen under a write lease: taking
// it fails while any other process has the file open, and while it is
// held another process's open waits for its release, so an appender that
// takes no lock (pi opens, appends and closes) appends after the cut,
// never into the bytes it removes. Where leases are missing, the size
// check just before the cut is the guard.
func (l *LockedFile) Truncate(expect, size int64) error {
	release, err := leaseWrite(l.f)
	if err != nil {
		return fmt.Errorf("env: truncate %s: %w", l.path, err)
	}
	defer release()
	if err := l.Check(expect); err != nil {
		return err
	}
	if err := l.f.Truncate(size); err != nil {
		return fmt.Errorf("env: truncate %s: %w", l.path, err)
	}
	if err := l.f.Sync(); err != nil {
		return fmt.Errorf("env: truncate %s: sync: %w", l.path, err)
	}
	return nil
}

// SameFile reports whether path names the locked file (device and inode),
// following symbolic links. An absent path is not the file.
func (l *LockedFile) SameFile(path string) (bool, error) {
	info, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("env: %s: %w", path, err)
	}
	return os.SameFile(info, l.id), nil
}

// OpenElsewhere lists the other processes that hold the locked file open
// (on Linux, from /proc; elsewhere none can be seen). A caller about to
// change the file refuses while any does: such a process may append
// between a size check and the change, and nothing else would stop it.
func (l *LockedFile) OpenElsewhere() ([]int, error) {
	pids, err := openElsewhere(l.id)
	if err != nil {
		return nil, fmt.Errorf("env: %s: who holds it open: %w", l.path, err)
	}
	return pids, nil
}

// Close releases the lock and the file.
func (l *LockedFile) Close() error { return l.f.Close() }
