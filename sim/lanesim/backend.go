package lanesim

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/frameproof/frameproof/faults"
	"github.com/frameproof/frameproof/impl/env"
	"github.com/frameproof/frameproof/impl/store"
	"github.com/frameproof/frameproof/impl/store/jsonl"
	"github.com/frameproof/frameproof/impl/store/memory"
	"github.com/frameproof/frameproof/impl/store/sqlite"
	"github.com/frameproof/frameproof/sim/world"
)

// backend opens the storage of one lane process and decides what survives a
// crash of it.
type backend interface {
	// open opens (or, the first time, creates) the storage for proc; for
	// JSONL this is recovery: replay, torn-tail repair, compaction.
	open(proc *world.Process) (store.Storage, error)
	// crash is power loss under the crashed process (what the disk keeps).
	crash() string
	// injectFault arranges for the next commit to fail with a storage error
	// and reports whether the backend does it itself (else the wrapper fails
	// the commit before it reaches the backend).
	injectFault() bool
	close()
}

func newBackend(r *runner) (backend, error) {
	switch r.opts.Backend {
	case "", "memory":
		return &memoryBackend{st: memory.New(r.w)}, nil
	case "jsonl":
		fs := faults.NewFS(r.w)
		opts := jsonl.Options{Bugs: r.storeBugs}
		if r.p.compaction {
			opts.CompactDeadRatio, opts.CompactMinBytes = 0.3, 0
		}
		return &jsonlBackend{r: r, fs: fs, yfs: yieldFS{FS: fs, w: r.w}, path: "/lane/s.jsonl", opts: opts}, nil
	case "sqlite":
		if r.opts.TempDir == "" {
			return nil, fmt.Errorf("lanesim: the sqlite backend needs Options.TempDir")
		}
		dir, err := os.MkdirTemp(r.opts.TempDir, "lanesim-")
		if err != nil {
			return nil, fmt.Errorf("lanesim: sqlite temp dir: %w", err)
		}
		return &sqliteBackend{r: r, dir: dir, path: filepath.Join(dir, "s.db")}, nil
	}
	return nil, fmt.Errorf("lanesim: unknown backend %q (known: %v)", r.opts.Backend, Backends())
}

// memory: the committed state is the disk; a crash loses only what had not
// committed (queued line work dies with the process).
type memoryBackend struct{ st *memory.Store }

func (b *memoryBackend) open(*world.Process) (store.Storage, error) { return b.st, nil }
func (b *memoryBackend) crash() string                              { return "memory keeps every commit" }
func (b *memoryBackend) injectFault() bool                          { return false }
func (b *memoryBackend) close()                                     {}

// jsonl: all file I/O goes through faults.FS behind a yielding wrapper, so a
// crash can fall between a write and its fsync.
type jsonlBackend struct {
	r       *runner
	fs      *faults.FS
	yfs     yieldFS
	path    string
	opts    jsonl.Options
	created bool
}

func (b *jsonlBackend) open(proc *world.Process) (store.Storage, error) {
	e := proc.Env(b.yfs)
	if !b.created {
		b.created = true
		if err := b.fs.MkdirAll("/lane"); err != nil {
			return nil, err
		}
		return jsonl.Create(e, b.path, jsonl.Header{ID: "sim", StorageVersion: jsonl.StorageVersion, Cwd: "/"}, b.opts)
	}
	b.fs.ClearFaults()
	return jsonl.Open(e, b.path, b.opts)
}

func (b *jsonlBackend) crash() string { return b.fs.Crash().String() }

func (b *jsonlBackend) injectFault() bool {
	op := faults.OpSync
	if choiceBool(b.r.w, "fault-op") {
		op = faults.OpWrite
	}
	b.fs.FailNext(op, b.path, faults.EIO)
	return true
}
func (b *jsonlBackend) close() {}

// yieldFS makes every file write, fsync, rename and directory fsync a
// scheduling point (a crash may fall right before it).
type yieldFS struct {
	*faults.FS
	w *world.World
}

type yieldFile struct {
	env.File
	w *world.World
}

func (y yieldFS) Create(path string) (env.File, error) {
	f, err := y.FS.Create(path)
	if err != nil {
		return nil, err
	}
	return yieldFile{f, y.w}, nil
}

func (y yieldFS) OpenAppend(path string) (env.File, error) {
	f, err := y.FS.OpenAppend(path)
	if err != nil {
		return nil, err
	}
	return yieldFile{f, y.w}, nil
}

func (y yieldFS) Rename(a, b string) error { y.w.Yield(); return y.FS.Rename(a, b) }
func (y yieldFS) SyncDir(d string) error   { y.w.Yield(); return y.FS.SyncDir(d) }
func (f yieldFile) Write(p []byte) (int, error) {
	f.w.Yield()
	return f.File.Write(p)
}
func (f yieldFile) Sync() error { f.w.Yield(); return f.File.Sync() }

// sqlite: real files; a crash abandons the process and reopens the database
// (committed transactions stay; SQLite does its own I/O, see impl/store/sqlite).
type sqliteBackend struct {
	r    *runner
	dir  string
	path string
	cur  *sqlite.Store
}

func (b *sqliteBackend) open(*world.Process) (store.Storage, error) {
	if b.cur != nil {
		_ = b.cur.Close()
	}
	st, err := sqlite.Open(b.path, b.r.w, sqlite.Options{Sync: sqlite.SyncNever})
	if err != nil {
		return nil, err
	}
	b.cur = st
	return st, nil
}
func (b *sqliteBackend) crash() string     { return "sqlite keeps committed transactions" }
func (b *sqliteBackend) injectFault() bool { return false }
func (b *sqliteBackend) close() {
	if b.cur != nil {
		_ = b.cur.Close()
	}
	_ = os.RemoveAll(b.dir)
}
