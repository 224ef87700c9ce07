package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"sync"

	sqlitedrv "modernc.org/sqlite"
)

// An InMemory database is created by copying the pages of a template that
// already holds the schema (SQLite's backup API, restoring into the new
// database) instead of running the schema's CREATE statements: parsing and
// running them was half of an InMemory Open, the simulator's per-run cost
// for the sqlite backend. The copy is the same pages the statements would
// write, so the new database is the one they would create; it stays the
// shared memdb database named by its path, independent of the template.

// templateName names the template in memdb: no Store path can collide with
// it, as Open gives each InMemory path its own name under "/".
const templateName = "/frameproof-sqlite-schema-template"

var memTemplate struct {
	once sync.Once
	db   *sql.DB // kept open: a memdb database lives while a connection does
	err  error
	// mu serializes InMemory creates, so that two Opens of one new path
	// cannot both find it empty and the second restore erase the first's
	// commits (memdb databases are process-local, so a process lock
	// covers every opener).
	mu sync.Mutex
}

// templateURI opens the template read-only; its schema was created once.
func templateURI() string {
	return "file:" + templateName + "?vfs=memdb&mode=ro"
}

// openTemplate creates the template database once per process.
func openTemplate() error {
	memTemplate.once.Do(func() {
		db, err := sql.Open("sqlite", "file:"+templateName+"?vfs=memdb")
		if err != nil {
			memTemplate.err = err
			return
		}
		db.SetMaxOpenConns(1)
		if _, err := db.Exec(schema); err != nil {
			_ = db.Close()
			memTemplate.err = err
			return
		}
		memTemplate.db = db
	})
	return memTemplate.err
}

// restorer is the modernc.org/sqlite connection's restore method.
type restorer interface {
	NewRestore(srcURI string) (*sqlitedrv.Backup, error)
}

// createInMemory gives db (one connection, InMemory) the schema: a new,
// empty database is restored from the template; an existing one (another
// Store has it open) gets the schema statements, as on disk, which leave
// its tables alone.
func createInMemory(db *sql.DB) error {
	memTemplate.mu.Lock()
	defer memTemplate.mu.Unlock()
	var objects int
	if err := db.QueryRow(`SELECT count(*) FROM sqlite_schema`).Scan(&objects); err != nil {
		return err
	}
	if objects > 0 {
		_, err := db.Exec(schema)
		return err
	}
	if err := openTemplate(); err != nil {
		return fmt.Errorf("template: %w", err)
	}
	conn, err := db.Conn(context.Background())
	if err != nil {
		return err
	}
	defer conn.Close()
	return conn.Raw(func(dc any) error {
		r, ok := dc.(restorer)
		if !ok {
			return fmt.Errorf("driver connection %T cannot restore", dc)
		}
		b, err := r.NewRestore(templateURI())
		if err != nil {
			return fmt.Errorf("restore template: %w", err)
		}
		_, err = b.Step(-1)
		if ferr := b.Finish(); err == nil {
			err = ferr
		}
		if err != nil {
			return fmt.Errorf("restore template: %w", err)
		}
		return nil
	})
}
