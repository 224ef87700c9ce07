package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"

	_ "modernc.org/sqlite" // registers the "sqlite" database/sql driver

	"github.com/frameproof/frameproof/impl/env"
	"github.com/frameproof/frameproof/impl/store"
)

// SyncMode says when a commit is durable.
type SyncMode string

// Sync modes. The zero value means SyncAlways.
const (
	SyncAlways SyncMode = "always" // synchronous=FULL: acknowledged after fsync
	SyncNever  SyncMode = "never"  // synchronous=OFF: for tests and benchmarks
)

// Options configure Open.
type Options struct {
	Sync SyncMode
	// InMemory keeps the database in this process's memory (SQLite's memdb
	// VFS) under the name path instead of in a file: every Store opened on
	// the same path shares it, and it is gone when the last of them
	// closes. Its journal is in memory too (journal_mode WAL does not
	// apply). For simulations, whose crashes abandon a process but lose no
	// page the OS holds: no file is read, written, locked or synced.
	InMemory bool
}

// ErrClosed is returned by every call after Close.
var ErrClosed = errors.New("sqlite: store is closed")

// Store is a store.Storage in one SQLite database file.
type Store struct {
	path  string
	clock env.Clock
	db    *sql.DB
	// conn is db's only connection, held from Open to Close: every
	// statement is prepared on its driver connection and runs there
	// directly, inside conn.Raw, and a commit is the BEGIN IMMEDIATE and
	// COMMIT statements prepared there (the ones database/sql's BeginTx and
	// Commit run through the driver, which parses them again each time,
	// and a sql.Tx's Stmt per statement).
	conn  *sql.Conn
	stmts statements

	mu      sync.Mutex
	nextSeq int64
	closed  bool
	// stats are pi's session totals, kept durably in the stats table and
	// updated inside each commit's transaction (loadStats).
	stats store.SessionStats

	// entriesLen is the length of Entries' last answer, the capacity its
	// next starts with; parents is its scratch list of parent ids.
	entriesLen int
	parents    []parentAt
}

var _ store.Storage = (*Store)(nil)

const schema = `
CREATE TABLE IF NOT EXISTS meta (
	name  TEXT PRIMARY KEY,
	value INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS entries (
	seq       INTEGER PRIMARY KEY,
	id        TEXT NOT NULL UNIQUE,
	parent_id TEXT,
	raw       BLOB NOT NULL,
	timestamp INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS usage (
	seq INTEGER PRIMARY KEY,
	id  TEXT NOT NULL UNIQUE,
	raw BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS kv_values (
	namespace BLOB NOT NULL,
	key       BLOB NOT NULL,
	value     BLOB NOT NULL,
	seq       INTEGER NOT NULL,
	PRIMARY KEY (namespace, key)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS list_elements (
	namespace BLOB NOT NULL,
	key       BLOB NOT NULL,
	seq       INTEGER NOT NULL,
	value     BLOB NOT NULL,
	PRIMARY KEY (namespace, key, seq)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS stats (
	name          TEXT PRIMARY KEY,
	message_count INTEGER NOT NULL,
	usage         BLOB NOT NULL
);
INSERT OR IGNORE INTO meta (name, value) VALUES ('next_seq', 1), ('schema_version', 1);
`

// Open opens (creating when absent) the database at path.
func Open(path string, clock env.Clock, opts Options) (*Store, error) {
	syncPragma := "FULL"
	switch opts.Sync {
	case "", SyncAlways:
	case SyncNever:
		syncPragma = "OFF"
	default:
		return nil, fmt.Errorf("sqlite: open %s: invalid sync mode %q", path, opts.Sync)
	}
	q := url.Values{}
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous("+syncPragma+")")
	q.Add("_pragma", "busy_timeout(10000)")
	q.Add("_pragma", "foreign_keys(OFF)")
	q.Set("_txlock", "immediate")
	if opts.InMemory {
		// memdb shares a database between connections only under a
		// name that starts with "/"
		q.Set("vfs", "memdb")
		if !strings.HasPrefix(path, "/") {
			path = "/" + path
		}
	}
	db, err := sql.Open("sqlite", "file:"+uriPath(path)+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	// One connection: commits are serialized anyway, and every pragma above
	// applies to the only connection there is.
	db.SetMaxOpenConns(1)
	if err := createSchema(db, opts.InMemory); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("sqlite: open %s: create schema: %w", path, err)
	}
	s := &Store{path: path, clock: clock, db: db}
	if err := db.QueryRow(`SELECT value FROM meta WHERE name = 'next_seq'`).Scan(&s.nextSeq); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("sqlite: open %s: read next_seq: %w", path, err)
	}
	conn, err := db.Conn(context.Background())
	if err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("sqlite: open %s: connection: %w", path, err)
	}
	s.conn = conn
	if err := conn.Raw(s.stmts.prepare); err != nil {
		_ = conn.Close()
		_ = db.Close()
		return nil, fmt.Errorf("sqlite: open %s: prepare statements: %w", path, err)
	}
	if err := conn.Raw(func(any) error { return s.loadStats() }); err != nil {
		_ = s.Close()
		return nil, fmt.Errorf("sqlite: open %s: stats: %w", path, err)
	}
	return s, nil
}

// createSchema creates the tables when absent: on disk with the schema's
// statements, in memory by copying a template (createInMemory).
func createSchema(db *sql.DB, inMemory bool) error {
	if inMemory {
		return createInMemory(db)
	}
	_, err := db.Exec(schema)
	return err
}

// uriPath escapes the characters that would otherwise end or re-encode the
// path part of a SQLite "file:" URI, so that path names exactly the file
// asked for ("a?b.db" would open "a", "a%20b.db" would open "a b.db").
func uriPath(path string) string {
	return strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23").Replace(path)
}

// Path returns the database file path.
func (s *Store) Path() string { return s.path }

// txLookup answers store.Lookup with queries inside the commit's
// transaction; the first query error is kept and fails the commit.
type txLookup struct {
	stmts *statements
	err   error
}

func (l *txLookup) exists(st *stmt, id string) bool {
	if l.err != nil {
		return false
	}
	found := false
	err := st.each(func(row []driver.Value) (bool, error) {
		found = true
		_, err := colInt64(row[0])
		return false, err
	}, id)
	if err != nil {
		l.err = err
		return false
	}
	return found
}

func (l *txLookup) HasEntryOrUsage(id string) bool {
	return l.exists(l.stmts.hasEntryOrUsage, id)
}

func (l *txLookup) HasEntry(id string) bool {
	return l.exists(l.stmts.hasEntry, id)
}

// Commit validates writes and applies them in one SQL transaction.
func (s *Store) Commit(writes []store.Write) (store.CommitResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return store.CommitResult{}, ErrClosed
	}
	return s.commitRaw(func(ts int64) ([]store.CommittedWrite, []store.EntryKind, error) {
		return store.PrepareKinds(writes, s.nextSeq, ts)
	})
}

var _ store.TxStorage = (*Store)(nil)

// CommitTx commits a prepared transaction all-or-none.
func (s *Store) CommitTx(tx *store.Tx) (store.CommitResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return store.CommitResult{}, ErrClosed
	}
	return s.commitRaw(func(ts int64) ([]store.CommittedWrite, []store.EntryKind, error) {
		prepared, kinds := tx.Stamp(s.nextSeq, ts)
		return prepared, kinds, nil
	})
}

// prepareFunc stamps a commit's writes with seqs from s.nextSeq and the
// transaction timestamp ts, preparing them first unless they are a Tx's.
type prepareFunc func(ts int64) ([]store.CommittedWrite, []store.EntryKind, error)

// commitRaw is commitLocked inside s.conn's Raw.
func (s *Store) commitRaw(prepare prepareFunc) (store.CommitResult, error) {
	var res store.CommitResult
	err := s.conn.Raw(func(any) error {
		var err error
		res, err = s.commitLocked(prepare)
		return err
	})
	return res, err
}

// commitLocked is Commit under s.mu, inside s.conn's Raw.
func (s *Store) commitLocked(prepare prepareFunc) (store.CommitResult, error) {
	ts := s.clock.Now().UnixMilli()
	prepared, kinds, err := prepare(ts)
	if err != nil {
		return store.CommitResult{}, err
	}
	if len(prepared) == 0 {
		return store.ResultOf(nil, s.nextSeq, ts), nil
	}
	if err := s.begin(); err != nil {
		return store.CommitResult{}, fmt.Errorf("sqlite: commit: begin: %w", err)
	}
	lookup := &txLookup{stmts: &s.stmts}
	verr := store.ValidateCommitted(prepared, s.nextSeq, lookup)
	if lookup.err != nil {
		s.rollback()
		return store.CommitResult{}, fmt.Errorf("sqlite: commit: validate: %w", lookup.err)
	}
	if verr == nil {
		verr = store.CheckUsageTotals(prepared)
	}
	if verr != nil {
		s.rollback()
		return store.CommitResult{}, verr
	}
	if err := apply(&s.stmts, prepared); err != nil {
		s.rollback()
		return store.CommitResult{}, fmt.Errorf("sqlite: commit: %w", err)
	}
	stats, statsChanged := s.stats, false
	for i := range prepared {
		if k := prepared[i].Kind; k == store.WriteEntry || k == store.WriteUsage {
			statsChanged = true
			break
		}
	}
	if statsChanged {
		stats.FoldKinds(prepared, kinds)
		if err := s.saveStats(stats); err != nil {
			s.rollback()
			return store.CommitResult{}, fmt.Errorf("sqlite: commit: stats: %w", err)
		}
	}
	next := prepared[len(prepared)-1].Seq + 1
	if err := s.stmts.setNextSeq.run(next); err != nil {
		s.rollback()
		return store.CommitResult{}, fmt.Errorf("sqlite: commit: next_seq: %w", err)
	}
	if err := s.commit(); err != nil {
		return store.CommitResult{}, fmt.Errorf("sqlite: commit: %w", err)
	}
	s.nextSeq, s.stats = next, stats
	return store.ResultOf(prepared, prepared[0].Seq, ts), nil
}

// recycleSQL empties every table Commit writes and sets next_seq back to
// 1: the rows of a database Open has just created. Recycle prepares the
// statements at its first call and keeps them (parsing them was most of a
// recycle's CPU).
var recycleSQL = []string{
	`DELETE FROM entries`,
	`DELETE FROM usage`,
	`DELETE FROM kv_values`,
	`DELETE FROM list_elements`,
	`UPDATE meta SET value = 1 WHERE name = 'next_seq'`,
	`DELETE FROM stats`,
}

// Recycle empties the store, in one transaction, for a new user whose
// commits take their timestamps from clock: afterwards every read answers
// as in a database Open has just created, and the next commit gets seq 1.
// It is for a caller that would otherwise close the store and create
// another (the simulator, one empty InMemory database per run): opening a
// database (the connection, its pragmas, the schema, the prepared
// statements) costs several times as much. Only the caller that holds the
// only Store open on the database may recycle it.
func (s *Store) Recycle(clock env.Clock) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrClosed
	}
	if err := s.conn.Raw(s.recycleLocked); err != nil {
		return err
	}
	s.nextSeq, s.clock, s.stats = 1, clock, store.SessionStats{}
	return nil
}

// recycleLocked empties the tables, under s.mu, inside s.conn's Raw.
func (s *Store) recycleLocked(dc any) error {
	if err := s.stmts.prepareRecycle(dc); err != nil {
		return fmt.Errorf("sqlite: recycle: prepare: %w", err)
	}
	if err := s.begin(); err != nil {
		return fmt.Errorf("sqlite: recycle: begin: %w", err)
	}
	for _, st := range s.stmts.recycle {
		if err := st.run(); err != nil {
			s.rollback()
			return fmt.Errorf("sqlite: recycle: %w", err)
		}
	}
	if err := s.commit(); err != nil {
		return fmt.Errorf("sqlite: recycle: %w", err)
	}
	return nil
}

// begin starts a write transaction. IMMEDIATE takes the write lock at
// once, so that a commit waits for it (busy_timeout) before reading
// anything rather than failing to upgrade a read lock midway (the mode the
// connection's _txlock gave database/sql's BeginTx, which Store no longer
// uses).
func (s *Store) begin() error {
	return s.stmts.begin.run()
}

// commit commits the transaction; when the COMMIT fails it rolls back
// what may still be open, as the driver's Commit does, so that the
// connection is outside any transaction again.
func (s *Store) commit() error {
	if err := s.stmts.commit.run(); err != nil {
		s.rollback()
		return err
	}
	return nil
}

// rollback rolls the transaction back. Its error is dropped, as the
// callers' tx.Rollback errors were: the commit fails with the error that
// made it roll back (a ROLLBACK outside a transaction, after a COMMIT
// that ended it, fails harmlessly).
func (s *Store) rollback() { _ = s.stmts.rollback.run() }

func apply(st *statements, writes []store.CommittedWrite) error {
	for _, w := range writes {
		var err error
		ns, key := st.addr(w.Namespace, w.Key)
		switch {
		case w.Kind == store.WriteEntry:
			var parent driver.Value
			if w.Entry.ParentID != nil {
				parent = *w.Entry.ParentID
			}
			err = st.insertEntry.run(w.Seq, w.Entry.ID, parent, []byte(w.Entry.Raw), w.Timestamp)
		case w.Kind == store.WriteUsage:
			err = st.insertUsage.run(w.Seq, w.Usage.ID, []byte(w.Usage.Raw))
		case w.Kind == store.WriteValue && w.Op == store.OpSet:
			err = st.setValue.run(ns, key, []byte(w.Value), w.Seq)
		case w.Kind == store.WriteValue && w.Op == store.OpDelete:
			err = st.deleteValue.run(ns, key)
		case w.Kind == store.WriteList && w.Op == store.OpAppend:
			err = st.appendList.run(ns, key, w.Seq, []byte(w.Value))
		case w.Kind == store.WriteList && w.Op == store.OpDelete:
			err = st.deleteList.run(ns, key)
		default:
			err = fmt.Errorf("unknown write %s", w.Write)
		}
		if err != nil {
			return fmt.Errorf("write seq %d (%s): %w", w.Seq, w.Write, err)
		}
	}
	return nil
}
