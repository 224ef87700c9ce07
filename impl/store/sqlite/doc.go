// Package sqlite is the SQLite store backend, built on modernc.org/sqlite (a
// pure-Go translation of SQLite: no cgo, so the harness cross-compiles and
// runs in CI images without a C toolchain).
//
// Each commit is one SQL transaction (BEGIN IMMEDIATE … COMMIT): the writes
// are validated with the shared commit rules of package store, with the
// Lookup questions answered by queries inside the same transaction, and are
// applied only if validation passes, so an error leaves nothing behind. The
// database runs in WAL mode; Sync "always" sets synchronous=FULL (a commit is
// acknowledged only after the WAL is fsynced), "never" sets synchronous=OFF.
//
// Tables: meta (next_seq high-water mark), entries, usage, kv_values and
// list_elements. Namespaces and keys are stored as BLOBs so that ORDER BY
// compares bytes exactly like the in-memory backend (Go string order) and
// WTF-8 keys survive untouched.
//
// Exception to the determinism seam: this is the one backend that does not do
// its file I/O through env.FS. SQLite opens, writes, locks and fsyncs its
// database, WAL and shm files itself, through its own VFS layer, which
// env.FS (append/rename/fsync of whole files) cannot express. Crash safety of
// this backend is therefore tested by killing real processes
// (props/crash), not with faults.FS. Time still comes from env.Clock.
package sqlite
