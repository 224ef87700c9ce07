package faults

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"sync"

	"github.com/frameproof/frameproof/impl/env"
	"github.com/frameproof/frameproof/sim/choice"
)

// ErrCrashed is returned by every operation after the process "died": on a
// handle opened before the last Crash, and on everything after the point set
// by CrashAfter until Crash is called.
var ErrCrashed = errors.New("faults: process crashed")

// pendingOp is one unsynced data operation on an inode.
type pendingOp struct {
	trunc bool   // Create on an existing file: truncate to zero
	data  []byte // appended bytes
	lost  bool   // a failed fsync dropped it: the disk gets zeros instead
}

type inode struct {
	id      int
	durable []byte      // what the disk holds
	pending []pendingOp // what the page cache holds on top, in order
	visible []byte      // durable + pending, as reads see it
}

type dirOpKind int

const (
	dirCreate dirOpKind = iota
	dirRename
	dirRemove
)

// dirOp is one unsynced namespace operation.
type dirOp struct {
	kind    dirOpKind
	path    string // create/remove target, rename source
	newPath string // rename target
	ino     *inode
}

func (o dirOp) touches(dir string) bool {
	if filepath.Dir(o.path) == dir {
		return true
	}
	return o.kind == dirRename && filepath.Dir(o.newPath) == dir
}

func (o dirOp) String() string {
	switch o.kind {
	case dirCreate:
		return "create " + o.path
	case dirRename:
		return "rename " + o.path + " -> " + o.newPath
	default:
		return "remove " + o.path
	}
}

// Options select which crash behaviours are possible. The zero value is the
// strictest model; NewFS uses AllFaults.
type Options struct {
	Tear        bool // the first dropped write may be persisted as a byte prefix
	ZeroTail    bool // ... followed by zeros
	GarbageTail bool // ... or by garbage bytes (never '\n' unless GarbageNewlines)
	// GarbageNewlines lets garbage contain '\n', which turns a torn tail into
	// what a line-based reader sees as a complete corrupt line.
	GarbageNewlines bool
	LoseDirOps      bool // unsynced creates, renames and removes may be lost
	// Subset lets each crash choose subset mode (ModeSubset) instead of a
	// prefix crash: any subset of the block-sized pieces written since the
	// last fsync survives.
	Subset bool
	// BlockSize is the tearing granularity of subset crashes (0:
	// DefaultBlockSize).
	BlockSize int
}

// AllFaults enables every crash behaviour except newline garbage.
var AllFaults = Options{Tear: true, ZeroTail: true, GarbageTail: true, LoseDirOps: true, Subset: true}

// FS is an in-memory env.FS with a page-cache model. It is safe for
// concurrent use.
type FS struct {
	mu      sync.Mutex
	choices choice.Source
	opts    Options

	dirs         map[string]bool
	names        map[string]*inode // namespace as the process sees it
	durableNames map[string]*inode // namespace on disk
	journal      []dirOp           // pending namespace operations, in order
	nextIno      int

	gen        int // bumped by Crash; handles of older generations are dead
	ops        int // mutating operations performed so far
	crashAfter int // >0: operations after this count fail with ErrCrashed
	dead       bool

	inject   injector
	syncLies bool
	crashes  int
}

var _ env.FS = (*FS)(nil)

// NewFS returns an empty faulty file system whose crashes and rate-based
// faults draw from choices, with every crash behaviour enabled.
func NewFS(choices choice.Source) *FS {
	return NewFSWith(choices, AllFaults)
}

// NewFSWith is NewFS with a chosen set of crash behaviours.
func NewFSWith(choices choice.Source, opts Options) *FS {
	return &FS{
		choices:      choices,
		opts:         opts,
		dirs:         map[string]bool{".": true, "/": true},
		names:        map[string]*inode{},
		durableNames: map[string]*inode{},
	}
}

// SetSource replaces the source of decisions.
func (f *FS) SetSource(c choice.Source) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.choices = c
}

// SetSyncLies makes File.Sync and SyncDir report success without making
// anything durable: a broken disk (or backend) that acknowledges before data
// is safe. Crash tests use it as a mutation that must be caught.
func (f *FS) SetSyncLies(lie bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.syncLies = lie
}

// CrashAfter makes the process "die" after n more mutating operations
// (Write, Sync, Create, OpenAppend, Rename, Remove, SyncDir): from then on
// every operation fails with ErrCrashed and has no effect, until Crash.
// n = 0 kills it at once.
func (f *FS) CrashAfter(n int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.crashAfter = f.ops + n
	f.dead = n == 0
	if n == 0 {
		f.crashAfter = -1
	}
}

// Ops returns how many mutating operations have run (crash points are
// counted in these).
func (f *FS) Ops() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.ops
}

// Crashes returns how many times Crash ran.
func (f *FS) Crashes() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.crashes
}

// step accounts for one mutating operation; it reports ErrCrashed when the
// process is dead. Called with f.mu held.
func (f *FS) step() error {
	if f.dead {
		return ErrCrashed
	}
	if f.crashAfter > 0 && f.ops >= f.crashAfter {
		f.dead = true
		return ErrCrashed
	}
	f.ops++
	return nil
}

func clean(p string) string { return filepath.Clean(p) }

func (f *FS) parentExists(p string) bool { return f.dirs[filepath.Dir(p)] }

func notExist(op, p string) error {
	return &fs.PathError{Op: op, Path: p, Err: fs.ErrNotExist}
}

// ReadFile returns what a read would see now (page cache included).
func (f *FS) ReadFile(path string) ([]byte, error) {
	p := clean(path)
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.dead {
		return nil, &fs.PathError{Op: "read", Path: p, Err: ErrCrashed}
	}
	if err := f.inject.fail(f, OpRead, p); err != nil {
		return nil, err
	}
	ino, ok := f.names[p]
	if !ok {
		if f.dirs[p] {
			return nil, &fs.PathError{Op: "read", Path: p, Err: errors.New("is a directory")}
		}
		return nil, notExist("open", p)
	}
	return append([]byte(nil), ino.visible...), nil
}

// ReadFileAtMost is ReadFile refusing more than limit bytes.
func (f *FS) ReadFileAtMost(path string, limit int64) ([]byte, error) {
	b, err := f.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return env.CheckAtMost(clean(path), b, limit)
}

// Create creates or truncates path.
func (f *FS) Create(path string) (env.File, error) { return f.open(OpCreate, path, true) }

// OpenAppend opens path for appending, creating it when absent.
func (f *FS) OpenAppend(path string) (env.File, error) { return f.open(OpOpenAppend, path, false) }

func (f *FS) open(op Op, path string, trunc bool) (env.File, error) {
	p := clean(path)
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.step(); err != nil {
		return nil, &fs.PathError{Op: string(op), Path: p, Err: err}
	}
	if err := f.inject.fail(f, op, p); err != nil {
		return nil, err
	}
	if f.dirs[p] {
		return nil, &fs.PathError{Op: string(op), Path: p, Err: errors.New("is a directory")}
	}
	if !f.parentExists(p) {
		return nil, notExist(string(op), p)
	}
	ino, ok := f.names[p]
	if !ok {
		f.nextIno++
		ino = &inode{id: f.nextIno}
		f.names[p] = ino
		f.journal = append(f.journal, dirOp{kind: dirCreate, path: p, ino: ino})
	} else if trunc && len(ino.visible) > 0 {
		ino.pending = append(ino.pending, pendingOp{trunc: true})
		ino.visible = nil
	}
	return &file{fs: f, ino: ino, path: p, gen: f.gen}, nil
}

// Rename replaces newPath with oldPath in the namespace; it is durable after
// SyncDir of either directory.
func (f *FS) Rename(oldPath, newPath string) error {
	o, n := clean(oldPath), clean(newPath)
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.step(); err != nil {
		return &fs.PathError{Op: "rename", Path: o, Err: err}
	}
	if err := f.inject.fail(f, OpRename, o); err != nil {
		return err
	}
	ino, ok := f.names[o]
	if !ok {
		return &fs.PathError{Op: "rename", Path: o + " -> " + n, Err: fs.ErrNotExist}
	}
	if !f.parentExists(n) || f.dirs[n] {
		return &fs.PathError{Op: "rename", Path: o + " -> " + n, Err: fs.ErrNotExist}
	}
	if o == n {
		return nil
	}
	delete(f.names, o)
	f.names[n] = ino
	f.journal = append(f.journal, dirOp{kind: dirRename, path: o, newPath: n, ino: ino})
	return nil
}

// Remove deletes path from the namespace; durable after SyncDir.
func (f *FS) Remove(path string) error {
	p := clean(path)
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.step(); err != nil {
		return &fs.PathError{Op: "remove", Path: p, Err: err}
	}
	if err := f.inject.fail(f, OpRemove, p); err != nil {
		return err
	}
	ino, ok := f.names[p]
	if !ok {
		return notExist("remove", p)
	}
	delete(f.names, p)
	f.journal = append(f.journal, dirOp{kind: dirRemove, path: p, ino: ino})
	return nil
}

// Exists reports whether path is a file or directory now.
func (f *FS) Exists(path string) (bool, error) {
	p := clean(path)
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.dead {
		return false, &fs.PathError{Op: "stat", Path: p, Err: ErrCrashed}
	}
	_, ok := f.names[p]
	return ok || f.dirs[p], nil
}

// MkdirAll creates dir and its parents; directories are durable at once.
func (f *FS) MkdirAll(dir string) error {
	d := clean(dir)
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.dead {
		return &fs.PathError{Op: "mkdir", Path: d, Err: ErrCrashed}
	}
	for p := d; !f.dirs[p]; p = filepath.Dir(p) {
		if _, isFile := f.names[p]; isFile {
			return &fs.PathError{Op: "mkdir", Path: p, Err: errors.New("not a directory")}
		}
		f.dirs[p] = true
	}
	return nil
}

// SyncDir makes durable every pending namespace operation up to the last one
// that touches dir (the journal commits in order).
func (f *FS) SyncDir(dir string) error {
	d := clean(dir)
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.step(); err != nil {
		return &fs.PathError{Op: "syncdir", Path: d, Err: err}
	}
	if err := f.inject.fail(f, OpSyncDir, d); err != nil {
		return err
	}
	if !f.dirs[d] {
		return notExist("open", d)
	}
	if f.syncLies {
		return nil
	}
	last := -1
	for i, op := range f.journal {
		if op.touches(d) {
			last = i
		}
	}
	f.applyJournal(last + 1)
	return nil
}

// applyJournal makes the first n pending namespace operations durable.
func (f *FS) applyJournal(n int) {
	for _, op := range f.journal[:n] {
		switch op.kind {
		case dirCreate:
			f.durableNames[op.path] = op.ino
		case dirRename:
			delete(f.durableNames, op.path)
			f.durableNames[op.newPath] = op.ino
		case dirRemove:
			delete(f.durableNames, op.path)
		}
	}
	f.journal = append([]dirOp(nil), f.journal[n:]...)
}

// Files lists the paths that exist now (page cache view), sorted.
func (f *FS) Files() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return sortedKeys(f.names)
}

// DurableFiles lists the paths that would exist after a crash that keeps
// nothing pending, sorted.
func (f *FS) DurableFiles() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return sortedKeys(f.durableNames)
}

// Durable returns the content path would have after a crash that keeps
// nothing pending, and whether it would exist at all.
func (f *FS) Durable(path string) ([]byte, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	ino, ok := f.durableNames[clean(path)]
	if !ok {
		return nil, false
	}
	return append([]byte(nil), ino.durable...), true
}

// Pending returns how many unsynced data operations path has and how many
// namespace operations are unsynced overall.
func (f *FS) Pending(path string) (dataOps, dirOps int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if ino, ok := f.names[clean(path)]; ok {
		dataOps = len(ino.pending)
	}
	return dataOps, len(f.journal)
}

// WriteDurable installs path with content as fully durable (name and data),
// e.g. to set up a corrupt file for a test. The parent directory is created.
func (f *FS) WriteDurable(path string, content []byte) {
	p := clean(path)
	f.mu.Lock()
	defer f.mu.Unlock()
	for d := filepath.Dir(p); !f.dirs[d]; d = filepath.Dir(d) {
		f.dirs[d] = true
	}
	f.nextIno++
	ino := &inode{id: f.nextIno, durable: append([]byte(nil), content...)}
	ino.visible = append([]byte(nil), content...)
	f.names[p] = ino
	f.durableNames[p] = ino
}

func sortedKeys(m map[string]*inode) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// file is an open handle. It writes at the end of its inode.
type file struct {
	fs     *FS
	ino    *inode
	path   string
	gen    int
	closed bool
}

func (h *file) check(op string) error {
	if h.closed {
		return &fs.PathError{Op: op, Path: h.path, Err: fs.ErrClosed}
	}
	if h.gen != h.fs.gen {
		return &fs.PathError{Op: op, Path: h.path, Err: ErrCrashed}
	}
	return nil
}

// Write appends p as one pending operation. An injected error may leave a
// prefix of p written (a short write), chosen by the choice.Source.
func (h *file) Write(p []byte) (int, error) {
	f := h.fs
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := h.check("write"); err != nil {
		return 0, err
	}
	if err := f.step(); err != nil {
		return 0, &fs.PathError{Op: "write", Path: h.path, Err: err}
	}
	n := len(p)
	err := f.inject.fail(f, OpWrite, h.path)
	if err != nil {
		n = 0
		if len(p) > 0 {
			n = f.choices.Intn("short write bytes of "+h.path, len(p))
		}
	}
	if n > 0 {
		data := append([]byte(nil), p[:n]...)
		h.ino.pending = append(h.ino.pending, pendingOp{data: data})
		h.ino.visible = append(h.ino.visible, data...)
	}
	return n, err
}

// Sync makes the inode's pending data durable. An injected failure marks it
// lost instead: the disk will hold zeros in its place.
func (h *file) Sync() error {
	f := h.fs
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := h.check("sync"); err != nil {
		return err
	}
	if err := f.step(); err != nil {
		return &fs.PathError{Op: "sync", Path: h.path, Err: err}
	}
	if err := f.inject.fail(f, OpSync, h.path); err != nil {
		for i := range h.ino.pending {
			h.ino.pending[i].lost = true
		}
		return err
	}
	if f.syncLies {
		return nil
	}
	// In place: an inode owns its durable bytes (every other holder gets a
	// copy), and copying the whole file at every sync made an appended
	// log's syncs quadratic in its length.
	for _, op := range h.ino.pending {
		h.ino.durable = applyOp(h.ino.durable, op)
	}
	h.ino.pending = nil
	return nil
}

// Close releases the handle; it does not sync.
func (h *file) Close() error {
	f := h.fs
	f.mu.Lock()
	defer f.mu.Unlock()
	if h.closed {
		return &fs.PathError{Op: "close", Path: h.path, Err: fs.ErrClosed}
	}
	h.closed = true
	return nil
}

// applyOps returns base with ops applied as the disk would store them (lost
// writes become zeros).
func applyOps(base []byte, ops []pendingOp) []byte {
	out := append([]byte(nil), base...)
	for _, op := range ops {
		out = applyOp(out, op)
	}
	return out
}

func applyOp(out []byte, op pendingOp) []byte {
	if op.trunc {
		return out[:0]
	}
	if op.lost {
		return append(out, make([]byte, len(op.data))...)
	}
	return append(out, op.data...)
}

func (f *FS) String() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return fmt.Sprintf("faults.FS{files:%d journal:%d ops:%d crashes:%d}", len(f.names), len(f.journal), f.ops, f.crashes)
}
