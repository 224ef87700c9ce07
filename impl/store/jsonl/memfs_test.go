package jsonl

import (
	"errors"
	"fmt"
	"io/fs"
	"sync"

	"github.com/frameproof/frameproof/impl/env"
	"github.com/frameproof/frameproof/impl/env/envtest"
)

// memFS is a small in-memory env.FS for tests. Every mutating operation is
// counted; failAt = n makes the n-th one fail (a Write then stores only half
// of its bytes, like a torn write). synced holds each file's content as of
// its last fsync. gateSync, when set, is waited on inside every File.Sync;
// parked counts the syncs waiting on it right now.
type memFS struct {
	mu       sync.Mutex
	files    map[string][]byte
	synced   map[string][]byte
	ops      int
	failAt   int
	log      []string
	gateSync env.Future
	parked   int
}

var errInjected = errors.New("injected I/O error")

func newMemFS() *memFS {
	return &memFS{files: map[string][]byte{}, synced: map[string][]byte{}}
}

// step counts one mutating op and reports whether it must fail.
func (m *memFS) step(what string) bool {
	m.ops++
	m.log = append(m.log, what)
	return m.failAt > 0 && m.ops == m.failAt
}

func (m *memFS) content(path string) []byte {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]byte(nil), m.files[path]...)
}

func (m *memFS) put(path string, b []byte) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.files[path] = append([]byte(nil), b...)
}

func (m *memFS) ReadFile(path string) ([]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	b, ok := m.files[path]
	if !ok {
		return nil, fmt.Errorf("read %s: %w", path, fs.ErrNotExist)
	}
	return append([]byte(nil), b...), nil
}

func (m *memFS) ReadFileAtMost(path string, limit int64) ([]byte, error) {
	b, err := m.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return env.CheckAtMost(path, b, limit)
}

func (m *memFS) Create(path string) (env.File, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.step("create " + path) {
		return nil, errInjected
	}
	m.files[path] = nil
	return &memFile{fs: m, path: path}, nil
}

func (m *memFS) OpenAppend(path string) (env.File, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.step("openappend " + path) {
		return nil, errInjected
	}
	if _, ok := m.files[path]; !ok {
		m.files[path] = nil
	}
	return &memFile{fs: m, path: path}, nil
}

func (m *memFS) Rename(oldPath, newPath string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.step("rename " + oldPath) {
		return errInjected
	}
	b, ok := m.files[oldPath]
	if !ok {
		return fs.ErrNotExist
	}
	m.files[newPath] = b
	m.synced[newPath] = m.synced[oldPath]
	delete(m.files, oldPath)
	delete(m.synced, oldPath)
	return nil
}

func (m *memFS) Remove(path string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.files[path]; !ok {
		return fs.ErrNotExist
	}
	delete(m.files, path)
	return nil
}

func (m *memFS) Exists(path string) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	_, ok := m.files[path]
	return ok, nil
}

func (m *memFS) MkdirAll(string) error { return nil }

func (m *memFS) SyncDir(dir string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.step("syncdir " + dir) {
		return errInjected
	}
	return nil
}

type memFile struct {
	fs     *memFS
	path   string
	closed bool
}

func (f *memFile) Write(p []byte) (int, error) {
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	if f.closed {
		return 0, errors.New("write on closed file")
	}
	if f.fs.step("write " + f.path) {
		half := len(p) / 2
		f.fs.files[f.path] = append(f.fs.files[f.path], p[:half]...)
		return half, errInjected
	}
	f.fs.files[f.path] = append(f.fs.files[f.path], p...)
	return len(p), nil
}

func (f *memFile) Sync() error {
	f.fs.mu.Lock()
	gate := f.fs.gateSync
	if gate != nil {
		f.fs.parked++
	}
	f.fs.mu.Unlock()
	if gate != nil {
		_ = gate.Wait()
	}
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	if gate != nil {
		f.fs.parked--
	}
	if f.fs.step("sync " + f.path) {
		return errInjected
	}
	f.fs.synced[f.path] = append([]byte(nil), f.fs.files[f.path]...)
	return nil
}

// parkedSyncs returns how many File.Sync calls are waiting on gateSync.
func (m *memFS) parkedSyncs() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.parked
}

func (f *memFile) Close() error {
	f.closed = true
	return nil
}

func testEnv(m *memFS) env.Env {
	return env.Env{FS: m, Clock: envtest.NewTickClock(envtest.Epoch), Executor: env.Goroutines{}}
}
