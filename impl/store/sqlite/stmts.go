package sqlite

import (
	"context"
	"database/sql"
	"errors"
)

// statements are the store's SQL, prepared once at Open: parsing a
// statement costs more than running it on the small rows a lane commits
// (re-parsing every query was most of a commit's CPU time in the
// simulator's profile). They are prepared on the store's only connection
// (Store.conn) and run there directly, the transaction's BEGIN IMMEDIATE,
// COMMIT and ROLLBACK included.
type statements struct {
	hasEntryOrUsage, hasEntry *sql.Stmt
	insertEntry, insertUsage  *sql.Stmt
	setValue, deleteValue     *sql.Stmt
	appendList, deleteList    *sql.Stmt
	setNextSeq                *sql.Stmt
	begin, commit, rollback   *sql.Stmt

	getValue, scanValues *sql.Stmt
	listAsc, listDesc    *sql.Stmt
	allEntries, allUsage *sql.Stmt

	// recycle are Recycle's statements (recycleSQL), prepared at its
	// first call.
	recycle []*sql.Stmt
}

// statementSQL pairs each statement with its text.
func (st *statements) statementSQL() []struct {
	dst   **sql.Stmt
	query string
} {
	return []struct {
		dst   **sql.Stmt
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
	}
}

// prepare prepares every statement on conn; on an error it closes the
// ones it prepared.
func (st *statements) prepare(conn *sql.Conn) error {
	for _, s := range st.statementSQL() {
		p, err := conn.PrepareContext(context.Background(), s.query)
		if err != nil {
			return errors.Join(err, st.close())
		}
		*s.dst = p
	}
	return nil
}

// close closes every prepared statement.
func (st *statements) close() error {
	var errs []error
	for _, s := range st.statementSQL() {
		if *s.dst != nil {
			errs = append(errs, (*s.dst).Close())
			*s.dst = nil
		}
	}
	for _, p := range st.recycle {
		errs = append(errs, p.Close())
	}
	st.recycle = nil
	return errors.Join(errs...)
}
