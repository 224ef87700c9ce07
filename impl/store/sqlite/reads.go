package sqlite

import (
	"database/sql/driver"
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
	var out *store.StoredValue
	err := s.conn.Raw(func(any) error {
		ns, key := s.stmts.addr(addr.Namespace, addr.Key)
		return s.stmts.getValue.each(func(row []driver.Value) (bool, error) {
			out = &store.StoredValue{Address: store.Address{Namespace: addr.Namespace, Key: addr.Key, Kind: store.KindValue}}
			var err error
			if out.Value, err = colBytes(row[0]); err == nil {
				out.Seq, err = colInt64(row[1])
			}
			return false, err
		}, ns, key)
	})
	if err != nil {
		return nil, fmt.Errorf("sqlite: get value %s/%s: %w", addr.Namespace, addr.Key, err)
	}
	return out, nil
}

// ScanValues returns namespace's values whose key starts with keyPrefix, in
// ascending byte order of the key.
func (s *Store) ScanValues(namespace, keyPrefix string) ([]store.StoredValue, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, ErrClosed
	}
	out := []store.StoredValue{}
	err := s.conn.Raw(func(any) error {
		// statements.scanValues stops at the first key without the prefix
		ns, prefix := s.stmts.addr(namespace, keyPrefix)
		return s.stmts.scanValues.each(func(row []driver.Value) (bool, error) {
			key, _, err := colString(row[0])
			if err != nil || !strings.HasPrefix(key, keyPrefix) {
				return false, err
			}
			v := store.StoredValue{Address: store.Address{Namespace: namespace, Key: key, Kind: store.KindValue}}
			if v.Value, err = colBytes(row[1]); err == nil {
				v.Seq, err = colInt64(row[2])
			}
			out = append(out, v)
			return err == nil, err
		}, ns, prefix)
	})
	if err != nil {
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
	st, bound := s.stmts.listAsc, int64(math.MinInt64)
	if r.Order != store.Asc {
		st, bound = s.stmts.listDesc, math.MaxInt64
	}
	if r.Cursor != nil {
		bound = *r.Cursor
	}
	out := []store.ListElement{}
	err = s.conn.Raw(func(any) error {
		ns, key := s.stmts.addr(addr.Namespace, addr.Key)
		return st.each(func(row []driver.Value) (bool, error) {
			var el store.ListElement
			var err error
			if el.Seq, err = colInt64(row[0]); err == nil {
				el.Value, err = colBytes(row[1])
			}
			out = append(out, el)
			return err == nil, err
		}, ns, key, bound, int64(r.Limit))
	})
	if err != nil {
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
	var out []store.StoredEntry
	parents := s.parents[:0]
	err := s.conn.Raw(func(any) error {
		return s.stmts.allEntries.each(func(row []driver.Value) (bool, error) {
			e, parent, ok, err := entryRow(row)
			if err != nil {
				return false, err
			}
			if out == nil {
				out = make([]store.StoredEntry, 0, s.entriesLen+4)
			}
			if ok {
				parents = append(parents, parentAt{len(out), parent})
			}
			out = append(out, e)
			return true, nil
		})
	})
	if err == nil && len(parents) > 0 {
		// the parent ids in one array, not one allocation each
		ids := make([]string, len(parents))
		for k, p := range parents {
			ids[k] = p.id
			out[p.row].Entry.ParentID = &ids[k]
		}
	}
	clear(parents)
	s.parents = parents[:0]
	if err != nil {
		return nil, fmt.Errorf("sqlite: read entries: %w", err)
	}
	s.entriesLen = len(out)
	return out, nil
}

// parentAt is the parent id of Entries' row.
type parentAt struct {
	row int
	id  string
}

// entryRow is a row of statements.allEntries but its parent id, which it
// returns apart (ok false for NULL).
func entryRow(row []driver.Value) (e store.StoredEntry, parent string, ok bool, err error) {
	if e.Seq, err = colInt64(row[0]); err != nil {
		return e, "", false, err
	}
	id, ok, err := colString(row[1])
	if err == nil && !ok {
		err = errors.New("entry id is NULL")
	}
	if err != nil {
		return e, "", false, err
	}
	e.Entry.ID = id
	if parent, ok, err = colString(row[2]); err != nil {
		return e, "", false, err
	}
	if e.Entry.Raw, err = colBytes(row[3]); err != nil {
		return e, "", false, err
	}
	e.Timestamp, err = colInt64(row[4])
	return e, parent, ok, err
}

// Usage returns every usage row in seq order (nil when there are none).
func (s *Store) Usage() ([]store.StoredUsage, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, ErrClosed
	}
	var out []store.StoredUsage
	err := s.conn.Raw(func(any) error {
		return s.stmts.allUsage.each(func(row []driver.Value) (bool, error) {
			var u store.StoredUsage
			var ok bool
			var err error
			if u.Seq, err = colInt64(row[0]); err == nil {
				if u.Row.ID, ok, err = colString(row[1]); err == nil && !ok {
					err = errors.New("usage id is NULL")
				}
			}
			if err == nil {
				u.Row.Raw, err = colBytes(row[2])
			}
			out = append(out, u)
			return err == nil, err
		})
	})
	if err != nil {
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
	serr := s.conn.Raw(func(any) error { return s.stmts.close() })
	if err := errors.Join(serr, s.conn.Close(), s.db.Close()); err != nil {
		return fmt.Errorf("sqlite: close %s: %w", s.path, err)
	}
	return nil
}
