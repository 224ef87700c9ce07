package sqlite

import (
	"database/sql"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/frameproof/frameproof/impl/store"
)

// GetValue returns the value at addr, or nil when absent.
func (s *Store) GetValue(addr store.Address) (*store.StoredValue, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, ErrClosed
	}
	var raw []byte
	var seq int64
	err := s.stmts.getValue.QueryRow([]byte(addr.Namespace), []byte(addr.Key)).Scan(&raw, &seq)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("sqlite: get value %s/%s: %w", addr.Namespace, addr.Key, err)
	}
	return &store.StoredValue{
		Address: store.Address{Namespace: addr.Namespace, Key: addr.Key, Kind: store.KindValue},
		Value:   raw,
		Seq:     seq,
	}, nil
}

// ScanValues returns namespace's values whose key starts with keyPrefix, in
// ascending byte order of the key.
func (s *Store) ScanValues(namespace, keyPrefix string) ([]store.StoredValue, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, ErrClosed
	}
	// statements.scanValues stops at the first key without the prefix
	rows, err := s.stmts.scanValues.Query([]byte(namespace), []byte(keyPrefix))
	if err != nil {
		return nil, fmt.Errorf("sqlite: scan values %s/%s*: %w", namespace, keyPrefix, err)
	}
	defer rows.Close()
	out := []store.StoredValue{}
	for rows.Next() {
		var key, raw []byte
		var seq int64
		if err := rows.Scan(&key, &raw, &seq); err != nil {
			return nil, fmt.Errorf("sqlite: scan values %s/%s*: %w", namespace, keyPrefix, err)
		}
		if !strings.HasPrefix(string(key), keyPrefix) {
			break
		}
		out = append(out, store.StoredValue{
			Address: store.Address{Namespace: namespace, Key: string(key), Kind: store.KindValue},
			Value:   raw,
			Seq:     seq,
		})
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: scan values %s/%s*: %w", namespace, keyPrefix, err)
	}
	return out, nil
}

// ReadList pages the list at addr with pi's rules (store.ResolveReadOptions).
func (s *Store) ReadList(addr store.Address, opts store.ReadOptions) ([]store.ListElement, error) {
	r, err := store.ResolveReadOptions(opts)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, ErrClosed
	}
	stmt, bound := s.stmts.listAsc, int64(math.MinInt64)
	if r.Order != store.Asc {
		stmt, bound = s.stmts.listDesc, math.MaxInt64
	}
	if r.Cursor != nil {
		bound = *r.Cursor
	}
	rows, err := stmt.Query([]byte(addr.Namespace), []byte(addr.Key), bound, r.Limit)
	if err != nil {
		return nil, fmt.Errorf("sqlite: read list %s/%s: %w", addr.Namespace, addr.Key, err)
	}
	defer rows.Close()
	out := []store.ListElement{}
	for rows.Next() {
		var el store.ListElement
		var raw []byte
		if err := rows.Scan(&el.Seq, &raw); err != nil {
			return nil, fmt.Errorf("sqlite: read list %s/%s: %w", addr.Namespace, addr.Key, err)
		}
		el.Value = raw
		out = append(out, el)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: read list %s/%s: %w", addr.Namespace, addr.Key, err)
	}
	return out, nil
}

// Entries returns every entry in seq order (nil when there are none, like
// the in-memory state).
func (s *Store) Entries() ([]store.StoredEntry, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, ErrClosed
	}
	rows, err := s.stmts.allEntries.Query()
	if err != nil {
		return nil, fmt.Errorf("sqlite: read entries: %w", err)
	}
	defer rows.Close()
	var out []store.StoredEntry
	for rows.Next() {
		var e store.StoredEntry
		var parent sql.NullString
		var raw []byte
		if err := rows.Scan(&e.Seq, &e.Entry.ID, &parent, &raw, &e.Timestamp); err != nil {
			return nil, fmt.Errorf("sqlite: read entries: %w", err)
		}
		if parent.Valid {
			p := parent.String
			e.Entry.ParentID = &p
		}
		e.Entry.Raw = raw
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: read entries: %w", err)
	}
	return out, nil
}

// Usage returns every usage row in seq order (nil when there are none).
func (s *Store) Usage() ([]store.StoredUsage, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, ErrClosed
	}
	rows, err := s.stmts.allUsage.Query()
	if err != nil {
		return nil, fmt.Errorf("sqlite: read usage: %w", err)
	}
	defer rows.Close()
	var out []store.StoredUsage
	for rows.Next() {
		var u store.StoredUsage
		var raw []byte
		if err := rows.Scan(&u.Seq, &u.Row.ID, &raw); err != nil {
			return nil, fmt.Errorf("sqlite: read usage: %w", err)
		}
		u.Row.Raw = raw
		out = append(out, u)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: read usage: %w", err)
	}
	return out, nil
}

// NextSeq is the seq the next non-empty commit's first write gets.
func (s *Store) NextSeq() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.nextSeq
}

// Close closes the database. Later calls fail with ErrClosed; closing twice
// is a no-op.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	serr := s.stmts.close()
	if err := errors.Join(serr, s.conn.Close(), s.db.Close()); err != nil {
		return fmt.Errorf("sqlite: close %s: %w", s.path, err)
	}
	return nil
}
