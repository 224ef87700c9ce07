package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"

	"github.com/frameproof/frameproof/impl/env"
	"github.com/frameproof/frameproof/impl/store"
	"github.com/frameproof/frameproof/impl/store/fork"
)

// A session database: what a SQLite session repository
// (impl/store/sessionrepo) needs beyond the Storage: the fork source
// capture, a store created from a fork snapshot, and the session's own
// metadata in a one-row sessions table.

const sessionsSchema = `
CREATE TABLE IF NOT EXISTS sessions (
	id                TEXT PRIMARY KEY,
	created_at        INTEGER NOT NULL,
	storage_version   INTEGER NOT NULL,
	parent_session_id TEXT
);`

// SessionRow is one database's sessions row.
type SessionRow struct {
	ID              string
	CreatedAt       int64
	StorageVersion  int64
	ParentSessionID *string
}

// CaptureForkSource is pi's captureForkSource: every entry and scalar
// value at one boundary between commits (commits hold the store's lock for
// their whole transaction, and so does the capture).
func (s *Store) CaptureForkSource() (fork.Source, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return fork.Source{}, ErrClosed
	}
	ctx := context.Background()
	var src fork.Source
	rows, err := s.conn.QueryContext(ctx, `SELECT seq, id, parent_id, raw, timestamp FROM entries ORDER BY seq`)
	if err != nil {
		return src, fmt.Errorf("sqlite: capture fork source: %w", err)
	}
	for rows.Next() {
		var e store.StoredEntry
		var parent sql.NullString
		var raw []byte
		if err := rows.Scan(&e.Seq, &e.Entry.ID, &parent, &raw, &e.Timestamp); err != nil {
			_ = rows.Close()
			return src, fmt.Errorf("sqlite: capture fork source: %w", err)
		}
		if parent.Valid {
			p := parent.String
			e.Entry.ParentID = &p
		}
		e.Entry.Raw = raw
		src.Entries = append(src.Entries, e)
	}
	if err := rows.Close(); err != nil {
		return src, fmt.Errorf("sqlite: capture fork source: %w", err)
	}
	rows, err = s.conn.QueryContext(ctx, `SELECT namespace, key, value, seq FROM kv_values ORDER BY seq`)
	if err != nil {
		return src, fmt.Errorf("sqlite: capture fork source: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var ns, key, value []byte
		v := store.StoredValue{}
		if err := rows.Scan(&ns, &key, &value, &v.Seq); err != nil {
			return src, fmt.Errorf("sqlite: capture fork source: %w", err)
		}
		v.Address = store.Address{Namespace: string(ns), Key: string(key), Kind: store.KindValue}
		v.Value = value
		src.Values = append(src.Values, v)
	}
	if err := rows.Err(); err != nil {
		return src, fmt.Errorf("sqlite: capture fork source: %w", err)
	}
	return src, nil
}

// CreateSession creates the database at path (the caller checked that no
// file is there) with its sessions row and, when snap is not nil, the fork
// snapshot's writes with their source seqs and next seq at the snapshot's
// (pi's createFromForkSnapshot), all in one transaction, and returns it
// open. On failure the store is closed; the caller removes the files.
func CreateSession(path string, clock env.Clock, opts Options, row SessionRow, snap *fork.Snapshot) (*Store, error) {
	s, err := Open(path, clock, opts)
	if err != nil {
		return nil, err
	}
	if err := s.initSession(row, snap); err != nil {
		_ = s.Close()
		return nil, err
	}
	return s, nil
}

func (s *Store) initSession(row SessionRow, snap *fork.Snapshot) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	ctx := context.Background()
	if _, err := s.conn.ExecContext(ctx, sessionsSchema); err != nil {
		return fmt.Errorf("sqlite: create session %s: %w", row.ID, err)
	}
	var parent driver.Value
	if row.ParentSessionID != nil {
		parent = *row.ParentSessionID
	}
	next, stats := s.nextSeq, s.stats
	err := s.conn.Raw(func(dc any) error {
		execer, ok := dc.(driver.ExecerContext)
		if !ok {
			return fmt.Errorf("the driver connection cannot execute statements")
		}
		if err := s.begin(); err != nil {
			return fmt.Errorf("begin: %w", err)
		}
		err := func() error {
			if _, err := execer.ExecContext(ctx, `INSERT INTO sessions (id, created_at, storage_version, parent_session_id) VALUES (?, ?, ?, ?)`,
				[]driver.NamedValue{{Ordinal: 1, Value: row.ID}, {Ordinal: 2, Value: row.CreatedAt},
					{Ordinal: 3, Value: row.StorageVersion}, {Ordinal: 4, Value: parent}}); err != nil {
				return err
			}
			if snap == nil {
				return nil
			}
			writes := snap.Writes()
			lookup := &txLookup{stmts: &s.stmts}
			if err := store.ValidateCommitted(writes, 1, lookup); err != nil {
				return err
			}
			if lookup.err != nil {
				return lookup.err
			}
			if err := apply(&s.stmts, writes); err != nil {
				return err
			}
			stats.Fold(writes)
			if err := s.saveStats(stats); err != nil {
				return err
			}
			next = max(snap.NextSeq, 1)
			return s.stmts.setNextSeq.run(next)
		}()
		if err != nil {
			s.rollback()
			return err
		}
		return s.commit()
	})
	if err != nil {
		return fmt.Errorf("sqlite: create session %s: %w", row.ID, err)
	}
	s.nextSeq, s.stats = next, stats
	return nil
}

// Session returns the database's sessions row.
func (s *Store) Session() (SessionRow, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return SessionRow{}, ErrClosed
	}
	return readSessionRow(context.Background(), s.conn)
}

type queryer interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

func readSessionRow(ctx context.Context, q queryer) (SessionRow, error) {
	var row SessionRow
	var parent sql.NullString
	err := q.QueryRowContext(ctx, `SELECT id, created_at, storage_version, parent_session_id FROM sessions LIMIT 1`).
		Scan(&row.ID, &row.CreatedAt, &row.StorageVersion, &parent)
	if err != nil {
		return row, fmt.Errorf("sqlite: read session row: %w", err)
	}
	if parent.Valid {
		p := parent.String
		row.ParentSessionID = &p
	}
	return row, nil
}

// ReadSessionRow reads the sessions row of the database at path without
// opening it as a store (read-only; a database without one is an error).
func ReadSessionRow(path string) (SessionRow, error) {
	db, err := sql.Open("sqlite", "file:"+uriPath(path)+"?mode=ro&_pragma=busy_timeout(10000)")
	if err != nil {
		return SessionRow{}, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	defer db.Close()
	return readSessionRow(context.Background(), db)
}
