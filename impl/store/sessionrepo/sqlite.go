package sessionrepo

import (
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/frameproof/frameproof/impl/env"
	"github.com/frameproof/frameproof/impl/store/fork"
	"github.com/frameproof/frameproof/impl/store/sqlite"
)

// SQLiteRepo is a session repository over SQLite: one database file per
// session, <Root>/<encodeURIComponent(id)>.sqlite, holding the session's
// store and a one-row sessions table with its metadata (id, createdAt,
// storage version, parent session id). pi-agent-core 0.85.1 ships no SQLite
// session repository (its dist has JSONL and memory only), so this one
// follows pi's SessionRepo contract (session/types.ts, and pi's
// session-repo suite, which it passes through `frameproof serve repo
// --backend sqlite`) with pi's JSONL repository's file-backed semantics
// and error strings: a session is open once per repository, closing it
// closes its store, open/delete of a missing file fail with "Session file
// does not exist: <path>", and the fork destination is reserved before the
// source is captured.
type SQLiteRepo struct {
	env  env.Env
	fs   env.DirFS
	root string
	opts sqlite.Options

	mu      sync.Mutex
	open    map[string]*sqlite.Store // by id
	pending map[string]bool
	closed  bool
}

var _ Repo = (*SQLiteRepo)(nil)

// NewSQLite returns a repository of the session databases in root (an
// absolute directory, created when a session is first created).
func NewSQLite(e env.Env, root string, opts sqlite.Options) (*SQLiteRepo, error) {
	fsys, err := env.AsDirFS(e.FS)
	if err != nil {
		return nil, fmt.Errorf("sessionrepo: %w", err)
	}
	if !filepath.IsAbs(root) {
		return nil, fmt.Errorf("sessionrepo: the sessions root %q is not absolute", root)
	}
	return &SQLiteRepo{env: e, fs: fsys, root: root, opts: opts, open: map[string]*sqlite.Store{}, pending: map[string]bool{}}, nil
}

var errSQLiteRepoClosed = errors.New("SqliteSessionRepo is closed")

const sqliteExt = ".sqlite"

// SQLiteFileName is a session's database file name.
func SQLiteFileName(id string) string { return EncodeURIComponent(id) + sqliteExt }

func (r *SQLiteRepo) pathOf(id string) string { return filepath.Join(r.root, SQLiteFileName(id)) }

func (r *SQLiteRepo) reserve(id string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return errSQLiteRepoClosed
	}
	if r.open[id] != nil || r.pending[id] {
		return fmt.Errorf("Session already exists: %s", id)
	}
	r.pending[id] = true
	return nil
}

func (r *SQLiteRepo) release(id string) {
	r.mu.Lock()
	delete(r.pending, id)
	r.mu.Unlock()
}

func metadataFromRow(row sqlite.SessionRow, path string) Metadata {
	return Metadata{ID: row.ID, CreatedAt: row.CreatedAt, StorageVersion: row.StorageVersion, Path: path,
		ParentSessionID: row.ParentSessionID}
}

// create makes a new session database (the id reserved by the caller).
func (r *SQLiteRepo) create(row sqlite.SessionRow, snap *fork.Snapshot) (*Session, error) {
	path := r.pathOf(row.ID)
	if err := r.fs.MkdirAll(r.root); err != nil {
		return nil, fmt.Errorf("Failed to create sessions directory %s: %w", r.root, err)
	}
	if ok, err := r.fs.Exists(path); err != nil {
		return nil, fmt.Errorf("Failed to check session %s: %w", path, err)
	} else if ok {
		return nil, fmt.Errorf("Session already exists: %s", row.ID)
	}
	st, err := sqlite.CreateSession(path, r.env.Clock, r.opts, row, snap)
	if err != nil {
		r.removeFiles(path)
		return nil, err
	}
	s, err := r.publish(metadataFromRow(row, path), st)
	if err != nil {
		_ = st.Close()
		r.removeFiles(path)
	}
	return s, err
}

func (r *SQLiteRepo) removeFiles(path string) {
	for _, p := range []string{path, path + "-wal", path + "-shm", path + "-journal"} {
		if ok, _ := r.fs.Exists(p); ok {
			_ = r.fs.Remove(p)
		}
	}
}

// publish records st as the open store of m's session.
func (r *SQLiteRepo) publish(m Metadata, st *sqlite.Store) (*Session, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.open[m.ID] != nil {
		return nil, fmt.Errorf("Session is already open: %s", m.ID)
	}
	r.open[m.ID] = st
	return &Session{Metadata: m, Storage: st, close: func() error {
		err := st.Close()
		r.mu.Lock()
		if r.open[m.ID] == st {
			delete(r.open, m.ID)
		}
		r.mu.Unlock()
		return err
	}}, nil
}

// Create is pi's SessionRepo.create.
func (r *SQLiteRepo) Create(o CreateOptions) (*Session, error) {
	createdAt := r.env.Clock.Now().UnixMilli()
	id := o.ID
	if id == "" {
		id = r.env.IDs.NewID()
	}
	if err := r.reserve(id); err != nil {
		return nil, err
	}
	defer r.release(id)
	return r.create(sqlite.SessionRow{ID: id, CreatedAt: createdAt, StorageVersion: StorageVersion, ParentSessionID: o.ParentSessionID}, nil)
}

// load opens m's database and checks that it holds m's session.
func (r *SQLiteRepo) load(m Metadata) (*sqlite.Store, error) {
	path := m.Path
	if path == "" {
		path = r.pathOf(m.ID)
	}
	exists, err := r.fs.Exists(path)
	if err != nil {
		return nil, fmt.Errorf("Failed to check session %s: %w", path, err)
	}
	if !exists {
		return nil, fmt.Errorf("Session file does not exist: %s", path)
	}
	st, err := sqlite.Open(path, r.env.Clock, r.opts)
	if err != nil {
		return nil, err
	}
	row, err := st.Session()
	if err == nil && row.ID != m.ID {
		err = fmt.Errorf("Session identity does not match header: %s", m.ID)
	}
	if err == nil && row.StorageVersion != StorageVersion {
		err = fmt.Errorf("Session %s uses unsupported storage version %d", m.ID, row.StorageVersion)
	}
	if err != nil {
		_ = st.Close()
		return nil, err
	}
	return st, nil
}

// Open is pi's SessionRepo.open.
func (r *SQLiteRepo) Open(m Metadata) (*Session, error) {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return nil, errSQLiteRepoClosed
	}
	if r.open[m.ID] != nil || r.pending[m.ID] {
		r.mu.Unlock()
		return nil, fmt.Errorf("Session is already open: %s", m.ID)
	}
	r.pending[m.ID] = true
	r.mu.Unlock()
	defer r.release(m.ID)
	st, err := r.load(m)
	if err != nil {
		return nil, err
	}
	row, err := st.Session()
	if err != nil {
		_ = st.Close()
		return nil, err
	}
	s, err := r.publish(metadataFromRow(row, st.Path()), st)
	if err != nil {
		_ = st.Close()
	}
	return s, err
}

// List lists every session database under the root, newest first, then
// by id (pi's JSONL repository's order). A file without a sessions row is
// skipped.
func (r *SQLiteRepo) List(ListOptions) ([]Metadata, error) {
	r.mu.Lock()
	closed := r.closed
	r.mu.Unlock()
	if closed {
		return nil, errSQLiteRepoClosed
	}
	out := []Metadata{}
	exists, err := r.fs.Exists(r.root)
	if err != nil {
		return nil, fmt.Errorf("Failed to check sessions root %s: %w", r.root, err)
	}
	if !exists {
		return out, nil
	}
	names, err := r.fs.ReadDir(r.root)
	if err != nil {
		return nil, fmt.Errorf("Failed to list sessions root %s: %w", r.root, err)
	}
	for _, n := range names {
		if n.Dir || !strings.HasSuffix(n.Name, sqliteExt) {
			continue
		}
		path := filepath.Join(r.root, n.Name)
		row, err := sqlite.ReadSessionRow(path)
		if err != nil {
			continue
		}
		out = append(out, metadataFromRow(row, path))
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].CreatedAt != out[j].CreatedAt {
			return out[i].CreatedAt > out[j].CreatedAt
		}
		return out[i].ID < out[j].ID
	})
	return out, nil
}

// Delete is pi's SessionRepo.delete: the session's database goes, unless
// the session is open.
func (r *SQLiteRepo) Delete(m Metadata) error {
	r.mu.Lock()
	err := error(nil)
	if r.closed {
		err = errSQLiteRepoClosed
	} else if r.open[m.ID] != nil {
		err = fmt.Errorf("Session is open: %s", m.ID)
	}
	r.mu.Unlock()
	if err != nil {
		return err
	}
	path := m.Path
	if path == "" {
		path = r.pathOf(m.ID)
	}
	exists, err := r.fs.Exists(path)
	if err != nil {
		return fmt.Errorf("Failed to check session %s: %w", path, err)
	}
	if !exists {
		return fmt.Errorf("Session file does not exist: %s", path)
	}
	if err := r.fs.Remove(path); err != nil {
		return fmt.Errorf("Failed to delete session %s: %w", path, err)
	}
	r.removeFiles(path)
	return nil
}

// Fork is pi's SessionRepo.fork: the destination id is reserved, the
// source captured at one boundary between its commits (from its open
// store or its file), forked (session/fork.ts createForkSnapshot), and
// the snapshot written into a new database in one transaction.
func (r *SQLiteRepo) Fork(source Metadata, o ForkOptions) (*Session, error) {
	createdAt := r.env.Clock.Now().UnixMilli()
	id := o.ID
	if id == "" {
		id = r.env.IDs.NewID()
	}
	if err := r.reserve(id); err != nil {
		return nil, err
	}
	defer r.release(id)
	captured, err := r.captureSource(source)
	if err != nil {
		return nil, err
	}
	snap, err := fork.Create(captured, o.Options)
	if err != nil {
		return nil, err
	}
	parent := source.ID
	return r.create(sqlite.SessionRow{ID: id, CreatedAt: createdAt, StorageVersion: StorageVersion, ParentSessionID: &parent}, &snap)
}

func (r *SQLiteRepo) captureSource(source Metadata) (fork.Source, error) {
	r.mu.Lock()
	st := r.open[source.ID]
	r.mu.Unlock()
	if st != nil {
		return st.CaptureForkSource()
	}
	return captureClosed(func() (forkSourcer, error) { return r.load(source) })
}

// Close refuses later calls; open sessions stay open (as pi's JSONL
// repository leaves them).
func (r *SQLiteRepo) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closed = true
	return nil
}
