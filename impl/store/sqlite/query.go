package sqlite

import (
	"database/sql/driver"
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/frameproof/frameproof/impl/store"
)

// pi's Storage query surface on SQLite, each query on an index: entries by
// id through the UNIQUE index on entries.id, a branch walk one such lookup
// per step, entries and usage rows by seq (their primary keys) from either
// end, and the totals from the stats row each commit updates.

var _ store.QueryStorage = (*Store)(nil)

// loadStats reads the stats row into s.stats; a database without one (made
// before the stats table) gets it computed from its tables and stored.
func (s *Store) loadStats() error {
	var raw []byte
	found := false
	var count int64
	err := s.stmts.getStats.each(func(row []driver.Value) (bool, error) {
		found = true
		var err error
		if count, err = colInt64(row[0]); err == nil {
			raw, err = colBytes(row[1])
		}
		return false, err
	})
	if err != nil {
		return err
	}
	if found {
		var st store.SessionStats
		if err := st.UnmarshalJSON(fmt.Appendf(nil, `{"messageCount":%d,"usage":%s}`, count, raw)); err != nil {
			return fmt.Errorf("stats row: %w", err)
		}
		s.stats = st
		return nil
	}
	var st store.SessionStats
	err = s.stmts.allEntries.each(func(row []driver.Value) (bool, error) {
		e, _, _, err := entryRow(row)
		if err == nil && store.KindOf(e.Entry.Raw).IsMessage() {
			st.MessageCount++
		}
		return err == nil, err
	})
	if err == nil {
		err = s.stmts.allUsage.each(func(row []driver.Value) (bool, error) {
			raw, err := colBytes(row[2])
			if err == nil {
				st.Usage.AddUsageRow(raw)
			}
			return err == nil, err
		})
	}
	if err != nil {
		return err
	}
	s.stats = st
	if st.MessageCount == 0 && st.Usage == (store.UsageTotals{}) {
		return nil // an empty store: the first commit writes the row
	}
	return s.saveStats(st)
}

// saveStats writes st to the stats row.
func (s *Store) saveStats(st store.SessionStats) error {
	u, err := st.Usage.MarshalJSON()
	if err != nil {
		return err
	}
	return s.stmts.setStats.run(st.MessageCount, u)
}

// entryByIDLocked looks an entry up by id, under s.mu inside conn.Raw.
func (s *Store) entryByIDLocked(id string) (store.StoredEntry, bool, error) {
	var out store.StoredEntry
	found := false
	err := s.stmts.entryByID.each(func(row []driver.Value) (bool, error) {
		e, parent, ok, err := entryRow(row)
		if err != nil {
			return false, err
		}
		if ok {
			e.Entry.ParentID = &parent
		}
		out, found = e, true
		return false, nil
	}, id)
	return out, found, err
}

// locked runs f under s.mu inside conn.Raw unless the store is closed.
func (s *Store) locked(what string, f func() error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrClosed
	}
	if err := s.conn.Raw(func(any) error { return f() }); err != nil {
		var pe piErr
		if errors.As(err, &pe) {
			return err
		}
		return fmt.Errorf("sqlite: %s: %w", what, err)
	}
	return nil
}

// piErr marks an error whose text is pi's, returned as it is.
type piErr struct{ error }

func (e piErr) Unwrap() error { return e.error }

// GetEntries is pi's getEntries in one statement: the ids as a JSON
// array, each looked up by the UNIQUE index on entries.id (it was one
// statement per id: 6 µs an id in pi's benchmark). An id JSON cannot carry
// as it is (invalid UTF-8) sends the ids one statement each instead.
func (s *Store) GetEntries(ids []string) (store.EntryList, error) {
	out := []store.StoredEntry{}
	arg, ok := idsJSON(ids)
	add := func(row []driver.Value) (bool, error) {
		e, parent, ok, err := entryRow(row)
		if err != nil {
			return false, err
		}
		if ok {
			e.Entry.ParentID = &parent
		}
		out = append(out, e)
		return true, nil
	}
	err := s.locked("get entries", func() error {
		if ok {
			return s.stmts.entriesByIDs.each(add, arg)
		}
		seen := map[string]bool{}
		for _, id := range ids {
			if seen[id] {
				continue
			}
			seen[id] = true
			if err := s.stmts.entryByID.each(add, id); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return store.EntryList{}, err
	}
	return store.EntriesOf(out), nil
}

// idsJSON is ids as a JSON array of strings (TEXT: SQLite reads a BLOB
// as JSONB), unless one is not valid UTF-8, which JSON would change.
func idsJSON(ids []string) (string, bool) {
	for _, id := range ids {
		if !utf8.ValidString(id) {
			return "", false
		}
	}
	b, err := json.Marshal(ids)
	return string(b), err == nil
}

// walk is pi's scanBranch: the path from q.Start to its root in one
// recursive statement (it was one statement per step: 7 µs a step at
// 100k entries), then store.FilterBranch.
func (s *Store) walk(q store.BranchScan) ([]store.BranchHit, error) {
	var hits []store.BranchHit
	err := s.locked("scan branch", func() error {
		var path []store.BranchHit
		var lastParent bool // the last row read has a parent
		inOrder := true
		err := s.stmts.branchPath.each(func(row []driver.Value) (bool, error) {
			e, parent, ok, err := entryRow(row)
			if err != nil {
				return false, err
			}
			if ok {
				e.Entry.ParentID = &parent
			}
			depth, err := colInt64(row[5])
			if err != nil {
				return false, err
			}
			inOrder = inOrder && depth == int64(len(path))
			lastParent = ok
			path = append(path, store.BranchHit{Entry: e, Kind: store.KindOf(e.Entry.Raw)})
			return true, nil
		}, q.Start)
		if err != nil {
			return err
		}
		if len(path) == 0 {
			return piErr{&store.UnknownBranchStartError{Start: q.Start}}
		}
		if !inOrder {
			// SQLite hands a recursive query's rows out in the order it
			// makes them (its queue is FIFO), which for a path is depth
			// order; should that ever change, the walk is slow, not wrong.
			path, lastParent, err = s.walkByStep(q.Start)
			if err != nil {
				return err
			}
		}
		if lastParent {
			return piErr{store.ErrCorruptBranch} // the root's parent is missing
		}
		hits = store.FilterBranch(q, path)
		return nil
	})
	if err != nil {
		var pe piErr
		if errors.As(err, &pe) {
			return nil, pe.error
		}
		return nil, err
	}
	return hits, nil
}

// walkByStep is the path from start by one lookup per step, and whether
// its last entry's parent is missing.
func (s *Store) walkByStep(start string) ([]store.BranchHit, bool, error) {
	var path []store.BranchHit
	for id := &start; id != nil; {
		e, ok, err := s.entryByIDLocked(*id)
		if err != nil || !ok {
			return path, len(path) > 0, err
		}
		path = append(path, store.BranchHit{Entry: e, Kind: store.KindOf(e.Entry.Raw)})
		id = e.Entry.ParentID
	}
	return path, false, nil
}

// ScanBranch is pi's scanBranch.
func (s *Store) ScanBranch(q store.BranchScan) (store.EntryList, error) {
	hits, err := s.walk(q)
	if err != nil {
		return store.EntryList{}, err
	}
	out := make([]store.StoredEntry, len(hits))
	for i, h := range hits {
		out[i] = h.Entry
	}
	return store.EntriesOf(out), nil
}

// ScanBranchStructure is pi's scanBranchStructure.
func (s *Store) ScanBranchStructure(q store.BranchScan) (store.StructureList, error) {
	hits, err := s.walk(q)
	if err != nil {
		return store.StructureList{}, err
	}
	out := make([]store.EntryStructure, len(hits))
	for i, h := range hits {
		out[i] = store.Structure(h.Entry, h.Kind)
	}
	return store.StructuresOf(out), nil
}

// ScanEntries is pi's scanEntries: rows in seq order from the bound on,
// filtered, until the limit is met.
func (s *Store) ScanEntries(q store.EntryScan) (store.EntryList, error) {
	lo, hi, limit := store.SeqBounds(q.FromSeq, q.ToSeq, q.Limit)
	out := []store.StoredEntry{}
	if limit == 0 {
		return store.EntriesOf(out), s.locked("scan entries", func() error { return nil })
	}
	st := s.stmts.entriesAsc
	if q.Order == store.Desc {
		st = s.stmts.entriesDesc
	}
	filtered := q.Type != nil || q.CustomType != nil
	err := s.locked("scan entries", func() error {
		return st.each(func(row []driver.Value) (bool, error) {
			e, parent, ok, err := entryRow(row)
			if err != nil {
				return false, err
			}
			if ok {
				e.Entry.ParentID = &parent
			}
			// the seq bounds are the statement's; a kind is read only
			// for a kind filter
			if !filtered || store.MatchesEntryScan(&q, e.Seq, store.KindOf(e.Entry.Raw)) {
				out = append(out, e)
			}
			return limit < 0 || int64(len(out)) < limit, nil
		}, lo, hi)
	})
	if err != nil {
		return store.EntryList{}, err
	}
	return store.EntriesOf(out), nil
}

// ScanUsage is pi's scanUsage.
func (s *Store) ScanUsage(q store.UsageScan) ([]store.StoredUsage, error) {
	lo, hi, limit := store.SeqBounds(q.FromSeq, q.ToSeq, q.Limit)
	st := s.stmts.usageAsc
	if q.Order == store.Desc {
		st = s.stmts.usageDesc
	}
	out := []store.StoredUsage{}
	err := s.locked("scan usage", func() error {
		return st.each(func(row []driver.Value) (bool, error) {
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
		}, lo, hi, limit) // LIMIT -1: no limit
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// GetStats is pi's getStats.
func (s *Store) GetStats() (store.SessionStats, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return store.SessionStats{}, ErrClosed
	}
	return s.stats, nil
}
