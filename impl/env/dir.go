package env

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
)

// DirEntry is one name in a directory.
type DirEntry struct {
	Name string
	// Dir: the name is a directory.
	Dir bool
	// ModTimeMs is the last modification time in Unix milliseconds with
	// its fraction, as node's fs.Stats.mtimeMs reports it.
	ModTimeMs float64
}

// DirFS is what a session repository needs beyond FS: list a directory and
// read one file's modification time (pi's JsonlSessionRepo lists its
// sessions root and stamps metadata with mtimeMs). It is a separate
// interface so that the simulator's and the fault layer's file systems,
// which never list directories, need not grow; a repository checks for it.
type DirFS interface {
	FS
	// ReadDir lists dir's names in name order.
	ReadDir(dir string) ([]DirEntry, error)
	// ModTimeMs returns path's modification time in Unix milliseconds,
	// with its fraction (node's mtimeMs).
	ModTimeMs(path string) (float64, error)
	// ReadHead returns the first n bytes of path (fewer when it is
	// shorter).
	ReadHead(path string, n int64) ([]byte, error)
}

// AsDirFS returns fsys as a DirFS, or an error naming what it lacks.
func AsDirFS(fsys FS) (DirFS, error) {
	if d, ok := fsys.(DirFS); ok {
		return d, nil
	}
	return nil, fmt.Errorf("env: file system %T cannot list directories", fsys)
}

var _ DirFS = OSFS{}

// ReadDir lists dir with os.ReadDir and lstats each name, as node's
// listDir does (pi's NodeExecutionEnv): a symbolic link is never a
// directory.
func (OSFS) ReadDir(dir string) ([]DirEntry, error) {
	des, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	out := make([]DirEntry, 0, len(des))
	for _, de := range des {
		info, err := os.Lstat(dir + string(os.PathSeparator) + de.Name())
		if errors.Is(err, os.ErrNotExist) {
			continue // removed since the listing, or a dangling link
		}
		if err != nil {
			return nil, err
		}
		out = append(out, DirEntry{Name: de.Name(), Dir: info.IsDir(), ModTimeMs: mtimeMs(info)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// ModTimeMs lstats path (pi's fileInfo).
func (OSFS) ModTimeMs(path string) (float64, error) {
	info, err := os.Lstat(path)
	if err != nil {
		return 0, err
	}
	return mtimeMs(info), nil
}

// mtimeMs is node's Stats.mtimeMs: seconds * 1e3 + nanoseconds / 1e6, in
// doubles.
func mtimeMs(info os.FileInfo) float64 {
	t := info.ModTime()
	return float64(t.Unix())*1e3 + float64(t.Nanosecond())/1e6
}

// ReadHead reads at most n bytes from the start of path.
func (OSFS) ReadHead(path string, n int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, n))
}
