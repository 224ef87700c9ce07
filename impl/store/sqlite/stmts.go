package sqlite

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
)

// statements are the store's SQL, prepared once at Open: parsing a
// statement costs more than running it on the small rows a lane commits
// (re-parsing every query was most of a commit's CPU time in the
// simulator's profile). They are prepared on the driver connection under
// the store's only connection (Store.conn) and run there directly, the
// transaction's BEGIN IMMEDIATE, COMMIT and ROLLBACK included, always
// inside Store.conn's Raw.
type statements struct {
	hasEntryOrUsage, hasEntry *stmt
	insertEntry, insertUsage  *stmt
	setValue, deleteValue     *stmt
	appendList, deleteList    *stmt
	setNextSeq                *stmt
	begin, commit, rollback   *stmt

	getValue, scanValues *stmt
	listAsc, listDesc    *stmt
	allEntries, allUsage *stmt

	entryByID, entriesByIDs *stmt
	branchPath              *stmt
	entriesAsc, entriesDesc *stmt
	usageAsc, usageDesc     *stmt
	getStats, setStats      *stmt

	// recycle are Recycle's statements (recycleSQL), prepared at its
	// first call.
	recycle []*stmt

	// nsBuf and keyBuf are addr's buffers.
	nsBuf, keyBuf []byte
}

// addr returns namespace and key as the BLOB arguments of one statement
// call, in buffers the next call reuses: the driver copies a []byte
// argument into SQLite's memory when it binds it (modernc.org/sqlite's
// bindBlob), so they are free again once the call has returned. They are
// never nil, which the driver would bind as NULL, not as an empty BLOB.
func (st *statements) addr(namespace, key string) ([]byte, []byte) {
	if st.nsBuf == nil {
		st.nsBuf, st.keyBuf = make([]byte, 0, 64), make([]byte, 0, 64)
	}
	st.nsBuf = append(st.nsBuf[:0], namespace...)
	st.keyBuf = append(st.keyBuf[:0], key...)
	return st.nsBuf, st.keyBuf
}

// statementSQL pairs each statement with its text.
func (st *statements) statementSQL() []struct {
	dst   **stmt
	query string
} {
	return []struct {
		dst   **stmt
		query string
	}{
		{&st.hasEntryOrUsage, `SELECT 1 FROM entries WHERE id = ?1 UNION ALL SELECT 1 FROM usage WHERE id = ?1 LIMIT 1`},
		{&st.hasEntry, `SELECT 1 FROM entries WHERE id = ?`},
		{&st.insertEntry, `INSERT INTO entries (seq, id, parent_id, raw, timestamp) VALUES (?, ?, ?, ?, ?)`},
		{&st.insertUsage, `INSERT INTO usage (seq, id, raw) VALUES (?, ?, ?)`},
		{&st.setValue, `INSERT INTO kv_values (namespace, key, value, seq) VALUES (?, ?, ?, ?)
				ON CONFLICT (namespace, key) DO UPDATE SET value = excluded.value, seq = excluded.seq`},
		{&st.deleteValue, `DELETE FROM kv_values WHERE namespace = ? AND key = ?`},
		{&st.appendList, `INSERT INTO list_elements (namespace, key, seq, value) VALUES (?, ?, ?, ?)`},
		{&st.deleteList, `DELETE FROM list_elements WHERE namespace = ? AND key = ?`},
		{&st.setNextSeq, `UPDATE meta SET value = ? WHERE name = 'next_seq'`},
		{&st.begin, `BEGIN IMMEDIATE`},
		{&st.commit, `COMMIT`},
		{&st.rollback, `ROLLBACK`},
		{&st.getValue, `SELECT value, seq FROM kv_values WHERE namespace = ? AND key = ?`},
		// Keys are BLOBs compared bytewise, so every key with the prefix
		// sorts at or after it and before the first key without it.
		// (substr() is not used: SQLite returns NULL for a zero-length
		// substr of an empty blob.)
		{&st.scanValues, `SELECT key, value, seq FROM kv_values WHERE namespace = ? AND key >= ? ORDER BY key`},
		// A page without a cursor passes the far end of INTEGER as its
		// bound, so one statement serves both.
		{&st.listAsc, `SELECT seq, value FROM list_elements WHERE namespace = ? AND key = ? AND seq > ? ORDER BY seq ASC LIMIT ?`},
		{&st.listDesc, `SELECT seq, value FROM list_elements WHERE namespace = ? AND key = ? AND seq < ? ORDER BY seq DESC LIMIT ?`},
		{&st.allEntries, `SELECT seq, id, parent_id, raw, timestamp FROM entries ORDER BY seq`},
		{&st.allUsage, `SELECT seq, id, raw FROM usage ORDER BY seq`},
		// pi's query surface: an entry by its id (the UNIQUE index), and
		// entries and usage rows by seq (their primary keys) from either
		// end, so that a page of the latest rows reads only that page.
		{&st.entryByID, `SELECT seq, id, parent_id, raw, timestamp FROM entries WHERE id = ?`},
		// Many entries by id (a JSON array of them): each looked up by
		// the UNIQUE index (CROSS JOIN keeps the array the outer loop),
		// each entry once, in the order of its first id.
		{&st.entriesByIDs, `SELECT e.seq, e.id, e.parent_id, e.raw, e.timestamp, MIN(j.key) AS first
				FROM json_each(?) AS j CROSS JOIN entries AS e ON e.id = j.value
				GROUP BY e.seq ORDER BY first`},
		// A branch's path in one statement: the start by its id, then
		// each row's parent by the UNIQUE index, with its depth.
		{&st.branchPath, `WITH RECURSIVE path(depth, seq, id, parent_id, raw, timestamp) AS (
				SELECT 0, seq, id, parent_id, raw, timestamp FROM entries WHERE id = ?
				UNION ALL
				SELECT path.depth + 1, e.seq, e.id, e.parent_id, e.raw, e.timestamp
					FROM path JOIN entries AS e ON e.id = path.parent_id
			) SELECT seq, id, parent_id, raw, timestamp, depth FROM path`},
		{&st.entriesAsc, `SELECT seq, id, parent_id, raw, timestamp FROM entries WHERE seq >= ? AND seq <= ? ORDER BY seq ASC`},
		{&st.entriesDesc, `SELECT seq, id, parent_id, raw, timestamp FROM entries WHERE seq >= ? AND seq <= ? ORDER BY seq DESC`},
		{&st.usageAsc, `SELECT seq, id, raw FROM usage WHERE seq >= ? AND seq <= ? ORDER BY seq ASC LIMIT ?`},
		{&st.usageDesc, `SELECT seq, id, raw FROM usage WHERE seq >= ? AND seq <= ? ORDER BY seq DESC LIMIT ?`},
		{&st.getStats, `SELECT message_count, usage FROM stats WHERE name = 'session'`},
		{&st.setStats, `INSERT INTO stats (name, message_count, usage) VALUES ('session', ?, ?)
				ON CONFLICT (name) DO UPDATE SET message_count = excluded.message_count, usage = excluded.usage`},
	}
}

// prepare prepares every statement on the driver connection dc; on an
// error none stays prepared.
func (st *statements) prepare(dc any) error {
	list := st.statementSQL()
	queries := make([]string, len(list))
	for i, s := range list {
		queries[i] = s.query
	}
	prepared, err := prepareAll(dc, queries)
	if err != nil {
		return err
	}
	for i, s := range list {
		*s.dst = prepared[i]
	}
	return nil
}

// prepareRecycle prepares Recycle's statements on dc once; on an error
// st.recycle stays nil.
func (st *statements) prepareRecycle(dc any) error {
	if st.recycle != nil {
		return nil
	}
	prepared, err := prepareAll(dc, recycleSQL)
	if err != nil {
		return err
	}
	st.recycle = prepared
	return nil
}

// prepareAll prepares queries on dc, in order; on an error it closes the
// ones it prepared.
func prepareAll(dc any, queries []string) ([]*stmt, error) {
	prepared := make([]*stmt, 0, len(queries))
	for _, q := range queries {
		p, err := prepareStmt(dc, q)
		if err != nil {
			errs := []error{err}
			for _, p := range prepared {
				errs = append(errs, p.close())
			}
			return nil, errors.Join(errs...)
		}
		prepared = append(prepared, p)
	}
	return prepared, nil
}

// close closes every prepared statement.
func (st *statements) close() error {
	var errs []error
	for _, s := range st.statementSQL() {
		if *s.dst != nil {
			errs = append(errs, (*s.dst).close())
			*s.dst = nil
		}
	}
	for _, p := range st.recycle {
		errs = append(errs, p.close())
	}
	st.recycle = nil
	return errors.Join(errs...)
}

// stmt is a statement prepared on the driver connection, run through the
// driver's own interfaces: database/sql's Stmt would take its locks,
// convert and copy the arguments and every scanned column again, on top
// of the driver's work. The driver copies every TEXT and BLOB column it
// returns into new Go memory (modernc.org/sqlite's columnText and
// columnBlob), so a row's values never alias memory the next row reuses.
type stmt struct {
	ds    driver.Stmt
	exec  driver.StmtExecContext
	query driver.StmtQueryContext
	// args and dest are the arguments and the row of the last call,
	// reused by the next (cleared after each, to hold on to nothing).
	args []driver.NamedValue
	dest []driver.Value
}

func prepareStmt(dc any, query string) (*stmt, error) {
	pc, ok := dc.(driver.ConnPrepareContext)
	if !ok {
		return nil, fmt.Errorf("driver connection %T cannot prepare with a context", dc)
	}
	ds, err := pc.PrepareContext(context.Background(), query)
	if err != nil {
		return nil, err
	}
	exec, eok := ds.(driver.StmtExecContext)
	q, qok := ds.(driver.StmtQueryContext)
	if !eok || !qok {
		return nil, errors.Join(fmt.Errorf("driver statement %T cannot execute or query with a context", ds), ds.Close())
	}
	return &stmt{ds: ds, exec: exec, query: q}, nil
}

func (s *stmt) close() error { return s.ds.Close() }

// bind sets the arguments: each a driver.Value the driver binds as is
// (int64, string, []byte or nil, the types database/sql's default
// converter would have passed it).
func (s *stmt) bind(vals []driver.Value) []driver.NamedValue {
	s.args = s.args[:0]
	for i, v := range vals {
		s.args = append(s.args, driver.NamedValue{Ordinal: i + 1, Value: v})
	}
	return s.args
}

// run executes the statement with vals.
func (s *stmt) run(vals ...driver.Value) error {
	_, err := s.exec.ExecContext(context.Background(), s.bind(vals))
	clear(s.args)
	return err
}

// each runs the query with vals and hands row every result row in order
// (in s.dest, which the next row overwrites), until row returns false or
// an error; it closes the rows and returns the first error.
func (s *stmt) each(row func(dest []driver.Value) (more bool, err error), vals ...driver.Value) error {
	dr, err := s.query.QueryContext(context.Background(), s.bind(vals))
	clear(s.args)
	if err != nil {
		return err
	}
	if n := len(dr.Columns()); len(s.dest) != n {
		s.dest = make([]driver.Value, n)
	}
	more := true
	for more && err == nil {
		if err = dr.Next(s.dest); err == io.EOF {
			err = nil
			break
		}
		if err == nil {
			more, err = row(s.dest)
		}
	}
	clear(s.dest)
	if cerr := dr.Close(); err == nil {
		err = cerr
	}
	return err
}

// The column conversions are database/sql's Scan's for the types the
// store's tables hold; any other value is an error, as a Scan that cannot
// convert is.

func colInt64(v driver.Value) (int64, error) {
	if n, ok := v.(int64); ok {
		return n, nil
	}
	return 0, fmt.Errorf("column holds %T, not an integer", v)
}

// colBytes returns a BLOB (or TEXT) column; NULL and an empty BLOB are nil.
// The driver's []byte is already a copy of its own.
func colBytes(v driver.Value) ([]byte, error) {
	switch b := v.(type) {
	case []byte:
		return b, nil
	case string:
		return []byte(b), nil
	case nil:
		return nil, nil
	}
	return nil, fmt.Errorf("column holds %T, not bytes", v)
}

// colString returns a TEXT (or BLOB) column; ok is false for NULL.
func colString(v driver.Value) (s string, ok bool, err error) {
	switch b := v.(type) {
	case string:
		return b, true, nil
	case []byte:
		return string(b), true, nil
	case nil:
		return "", false, nil
	}
	return "", false, fmt.Errorf("column holds %T, not text", v)
}
