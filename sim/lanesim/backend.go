package lanesim

import (
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/frameproof/frameproof/faults"
	"github.com/frameproof/frameproof/impl/env"
	"github.com/frameproof/frameproof/impl/store"
	"github.com/frameproof/frameproof/impl/store/backends"
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
	// simulatesDisk reports whether crash is power loss on a simulated
	// disk (so a restart after a storage fault loses power too).
	simulatesDisk() bool
	close()
}

// newBackend picks the simulation of a backend from its capabilities in
// the registry (impl/store/backends), never from its name: a backend in
// memory keeps one instance across crashes, one whose files go through
// env.FS runs on the page-cache model of faults.FS, and one doing its own
// I/O gets real files in a temporary directory.
func newBackend(r *runner) (backend, error) {
	name := r.opts.Backend
	if name == "" {
		name = "memory"
	}
	b, err := backends.ByName(name)
	if err != nil {
		return nil, fmt.Errorf("lanesim: %w", err)
	}
	switch {
	case !b.Durable:
		st, err := b.Create(env.Env{Clock: r.w, IDs: r.w}, "", backends.Options{})
		if err != nil {
			return nil, fmt.Errorf("lanesim: create %s store: %w", b.Name, err)
		}
		return &inMemoryBackend{name: b.Name, st: st}, nil
	case b.EnvFS:
		// faults.FS crashes may leave holes (subset mode): see
		// jsonl.Options.RepairHoledTail.
		opts := backends.Options{Session: "sim", JSONL: jsonlBugs(r.storeBugs), JSONLRepairHoledTail: true}
		if r.p.storeInputs.strict {
			opts.JSONL = strictHook(opts.JSONL)
		}
		if r.p.compaction {
			opts.CompactDeadRatio, opts.CompactMinBytes = 0.3, 0
		}
		fs := faults.NewFS(r.w)
		return &envFSBackend{r: r, b: b, fs: fs, yfs: yieldFS{FS: fs, w: r.w}, dir: "/lane", opts: opts}, nil
	}
	// fsync buys nothing here: a crash only abandons the process
	return &ownIOBackend{r: r, b: b, dir: fmt.Sprintf("/lanesim-%d", ownIORuns.Add(1))}, nil
}

// in memory (memory): the committed state is the disk; a crash loses only what had not
// committed (queued line work dies with the process).
type inMemoryBackend struct {
	name string
	st   store.Storage
}

func (b *inMemoryBackend) open(*world.Process) (store.Storage, error) { return b.st, nil }
func (b *inMemoryBackend) crash() string                              { return b.name + " keeps every commit" }
func (b *inMemoryBackend) injectFault() bool                          { return false }
func (b *inMemoryBackend) simulatesDisk() bool                        { return false }
func (b *inMemoryBackend) close()                                     {}

// files through env.FS (jsonl): all file I/O goes through faults.FS behind
// a yielding wrapper, so a crash can fall between a write and its fsync.
type envFSBackend struct {
	r       *runner
	b       backends.Backend
	fs      *faults.FS
	yfs     yieldFS
	dir     string
	opts    backends.Options
	created bool
	imgs    []uint64 // faults.CrashReport.Image of each crash
}

// diskImages is a backend that simulates a disk and hashes its state after
// each crash.
type diskImages interface{ images() []uint64 }

func (b *envFSBackend) images() []uint64 { return b.imgs }

func (b *envFSBackend) open(proc *world.Process) (store.Storage, error) {
	e := proc.Env(b.yfs)
	if !b.created {
		b.created = true
		if err := b.fs.MkdirAll(b.dir); err != nil {
			return nil, err
		}
		if in := b.r.p.storeInputs; in.foreign || in.probe {
			return b.openInputs(e)
		}
		return b.b.Create(e, b.dir, b.opts)
	}
	b.fs.ClearFaults()
	return b.b.Open(e, b.dir, b.opts)
}

func (b *envFSBackend) crash() string {
	rep := b.fs.Crash()
	b.imgs = append(b.imgs, rep.Image)
	return rep.String()
}

func (b *envFSBackend) injectFault() bool {
	op := faults.OpSync
	if choiceBool(b.r.w, "fault-op") {
		op = faults.OpWrite
	}
	b.fs.FailNext(op, b.b.Path(b.dir), faults.EIO)
	return true
}
func (b *envFSBackend) simulatesDisk() bool { return true }
func (b *envFSBackend) close()              {}

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

// own I/O (sqlite): a backend that does its own file I/O keeps its
// database in process memory (backends.Options.InMemory: SQLite's memdb
// VFS), under a name no other run of this process uses; a crash abandons
// the process (committed transactions stay).
//
// On disk, creating, opening and removing a database per run cost more CPU
// and waiting than the rest of the run: SQLite's file I/O, locking and
// fsyncs are what props/crash tests by killing real processes, and
// cannot fail in this crash model, which loses no page the OS holds.
//
// The store is created once per run and kept across its restarts, like
// the memory backend's: a new process would read exactly the pages the
// open connection reads, and opening SQLite (pragmas, schema, statements)
// is the largest single cost of a sqlite run (sqlite.Open was 11% of the
// default mix's CPU with a create and one reopen per run). Reopening an existing
// database is the store's own tests' business: its conformance suite
// reopens between steps (impl/store/sqlite TestConformance*), and
// props/crash kills real processes.
//
// A run's database is one that an earlier run of this process emptied
// (recycler: every table's rows deleted, next_seq 1, this run's clock)
// when there is one: it answers every read and commit as a database Create
// has just made (impl/store/sqlite TestRecycleIsANewStore), and creating
// one (the connection, its pragmas, the schema, 15 prepared statements)
// was half of the rest of a sqlite run's own cost over a memory run.
type ownIOBackend struct {
	r   *runner
	b   backends.Backend
	dir string
	cur store.Storage
}

// ownIORuns numbers the runs of this process that simulate an own-I/O
// backend (runs go in parallel: each needs its own database name).
var ownIORuns atomic.Int64

// recycler is own-I/O storage that can be emptied for the next run
// (sqlite.Store.Recycle).
type recycler interface {
	store.Storage
	Recycle(clock env.Clock) error
}

// recycled holds, per backend, databases that runs finished with, emptied
// for the next run; at most maxRecycled each (runs go in parallel).
var recycled struct {
	mu   sync.Mutex
	free map[string][]recycler
}

const maxRecycled = 8

// takeRecycled returns an emptied database of the backend, or nil.
func takeRecycled(backend string, clock env.Clock) store.Storage {
	recycled.mu.Lock()
	free := recycled.free[backend]
	if len(free) == 0 {
		recycled.mu.Unlock()
		return nil
	}
	st := free[len(free)-1]
	recycled.free[backend] = free[:len(free)-1]
	recycled.mu.Unlock()
	if err := st.Recycle(clock); err != nil {
		_ = st.Close()
		return nil
	}
	return st
}

// giveRecycled keeps st for a later run, or closes it.
func giveRecycled(backend string, st store.Storage) {
	rc, ok := st.(recycler)
	if ok {
		recycled.mu.Lock()
		if recycled.free == nil {
			recycled.free = map[string][]recycler{}
		}
		if ok = len(recycled.free[backend]) < maxRecycled; ok {
			recycled.free[backend] = append(recycled.free[backend], rc)
		}
		recycled.mu.Unlock()
	}
	if !ok {
		_ = st.Close()
	}
}

func (b *ownIOBackend) open(*world.Process) (store.Storage, error) {
	if b.cur != nil {
		return b.cur, nil
	}
	if st := takeRecycled(b.b.Name, b.r.w); st != nil {
		b.cur = st
		return st, nil
	}
	st, err := b.b.Create(env.Env{Clock: b.r.w, IDs: b.r.w}, b.dir, backends.Options{Sync: backends.SyncNever, InMemory: true})
	if err != nil {
		return nil, err
	}
	b.cur = st
	return st, nil
}

func (b *ownIOBackend) crash() string       { return b.b.Name + " keeps committed transactions" }
func (b *ownIOBackend) injectFault() bool   { return false }
func (b *ownIOBackend) simulatesDisk() bool { return false }
func (b *ownIOBackend) close() {
	if b.cur != nil {
		giveRecycled(b.b.Name, b.cur)
	}
}
