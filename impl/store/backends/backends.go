// Package backends is the one table of store backends. Every list of
// backends in the tree (the simulator, the lane tests, the lockstep driver,
// the kill tests, the CLI's help) derives from All, and each consumer picks
// its behaviour from a row's capabilities rather than its name, so adding a
// backend is its package plus one row here.
package backends

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/frameproof/frameproof/impl/env"
	"github.com/frameproof/frameproof/impl/store"
	"github.com/frameproof/frameproof/impl/store/jsonl"
	"github.com/frameproof/frameproof/impl/store/memory"
	"github.com/frameproof/frameproof/impl/store/sqlite"
)

// Backend is one row of the table.
type Backend struct {
	Name string
	// Durable: the store lives in a file under a directory and a new
	// process reopens it (Open). Otherwise the store is the process's
	// memory: a consumer that models a restart keeps the same instance,
	// and Open is nil.
	Durable bool
	// EnvFS: every file operation goes through env.FS, so a simulated file
	// system can cut power under the store and fail single operations.
	// Otherwise the backend does its own I/O and a crash can only abandon
	// the process (what committed stays).
	EnvFS bool
	// File is the store's file name inside its directory ("" when not
	// Durable).
	File string
	// Create makes a new, empty store in dir, which must exist.
	Create func(e env.Env, dir string, o Options) (store.Storage, error)
	// Open reopens the store Create made in dir.
	Open func(e env.Env, dir string, o Options) (store.Storage, error)
}

// Sync is how a commit reaches the disk.
type Sync int

const (
	// SyncAlways acknowledges a commit only after it is fsynced (the
	// production default of every durable backend).
	SyncAlways Sync = iota
	// SyncNever never fsyncs: for tests and simulations where a crash
	// cannot lose what the OS page cache holds.
	SyncNever
)

// Options are the knobs consumers set; a backend ignores the ones it does
// not have.
type Options struct {
	Sync Sync
	// Session and Cwd go into the header of a new JSONL file (defaults
	// "store" and "/").
	Session, Cwd string
	// CompactDeadRatio and CompactMinBytes tune automatic compaction
	// (JSONL; 0 ratio: off).
	CompactDeadRatio float64
	CompactMinBytes  int64
	// JSONL, when set, has the last word on the JSONL store's options
	// (nil: none). The simulator switches the store's injected defects on
	// through it, in builds with the frameproofbugs tag (jsonl.WithBugs).
	JSONL func(jsonl.Options) (jsonl.Options, error)
	// JSONLRepairHoledTail sets jsonl.Options.RepairHoledTail.
	JSONLRepairHoledTail bool
	// InMemory: a backend doing its own file I/O (sqlite) keeps its
	// database in this process's memory under dir, shared by every store
	// open on dir until the last one closes, instead of on disk (see
	// sqlite.Options.InMemory). For simulations.
	InMemory bool
}

// The store files (their names reach simulation traces: keep them).
const (
	jsonlFile  = "s.jsonl"
	sqliteFile = "s.db"
)

var all = []Backend{
	{Name: "memory", Create: createMemory},
	{Name: "jsonl", Durable: true, EnvFS: true, File: jsonlFile, Create: createJSONL, Open: openJSONL},
	{Name: "sqlite", Durable: true, File: sqliteFile, Create: openSQLite, Open: openSQLite},
}

// All lists every backend, in the order reports show them.
func All() []Backend { return append([]Backend(nil), all...) }

// Names lists the backends' names in table order.
func Names() []string {
	out := make([]string, len(all))
	for i, b := range all {
		out[i] = b.Name
	}
	return out
}

// ByName finds a backend.
func ByName(name string) (Backend, error) {
	for _, b := range all {
		if b.Name == name {
			return b, nil
		}
	}
	return Backend{}, fmt.Errorf("backends: unknown backend %q (known: %s)", name, strings.Join(Names(), ", "))
}

// Path is the store file of b in dir.
func (b Backend) Path(dir string) string { return filepath.Join(dir, b.File) }

func createMemory(e env.Env, _ string, _ Options) (store.Storage, error) {
	return memory.New(e.Clock), nil
}

func jsonlOptions(o Options) (jsonl.Options, error) {
	opts := jsonl.Options{Sync: jsonl.SyncAlways, CompactDeadRatio: o.CompactDeadRatio,
		CompactMinBytes: o.CompactMinBytes, RepairHoledTail: o.JSONLRepairHoledTail}
	if o.Sync == SyncNever {
		opts.Sync = jsonl.SyncNever
	}
	if o.JSONL == nil {
		return opts, nil
	}
	return o.JSONL(opts)
}

func createJSONL(e env.Env, dir string, o Options) (store.Storage, error) {
	h := jsonl.Header{ID: o.Session, Cwd: o.Cwd, StorageVersion: jsonl.StorageVersion}
	if h.ID == "" {
		h.ID = "store"
	}
	if h.Cwd == "" {
		h.Cwd = "/"
	}
	opts, err := jsonlOptions(o)
	if err != nil {
		return nil, fmt.Errorf("backends: jsonl options: %w", err)
	}
	return jsonl.Create(e, filepath.Join(dir, jsonlFile), h, opts)
}

func openJSONL(e env.Env, dir string, o Options) (store.Storage, error) {
	opts, err := jsonlOptions(o)
	if err != nil {
		return nil, fmt.Errorf("backends: jsonl options: %w", err)
	}
	return jsonl.Open(e, filepath.Join(dir, jsonlFile), opts)
}

// openSQLite creates the database file when it is absent.
func openSQLite(e env.Env, dir string, o Options) (store.Storage, error) {
	opts := sqlite.Options{Sync: sqlite.SyncAlways, InMemory: o.InMemory}
	if o.Sync == SyncNever {
		opts.Sync = sqlite.SyncNever
	}
	return sqlite.Open(filepath.Join(dir, sqliteFile), e.Clock, opts)
}
