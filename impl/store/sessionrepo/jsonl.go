package sessionrepo

import (
	"bytes"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/frameproof/frameproof/impl/env"
	"github.com/frameproof/frameproof/impl/store/fork"
	"github.com/frameproof/frameproof/impl/store/jsonl"
)

// JSONLOptions configure a JSONLRepo.
type JSONLOptions struct {
	// Root is pi's sessionsRoot: one directory per session cwd under it.
	// A relative Root is resolved against Cwd.
	Root string
	// Cwd is the directory relative paths resolve against (pi's
	// fileSystem.absolutePath: the execution environment's cwd), and the
	// cwd of a session created without one. pi's JsonlSessionCreateOptions
	// requires a cwd (JsonlSessionRepo.create without one throws a
	// TypeError in NodeExecutionEnv.absolutePath); frameproof takes this
	// one. It must be absolute.
	Cwd string
	// Store are the options of every session's store.
	Store jsonl.Options
}

// JSONLRepo is pi's JsonlSessionRepo (session/jsonl/repo.ts): each session
// is one JSONL v4 file, <Root>/--<cwd with / \ : as ->--/<createdAt as ISO
// with : . as ->_<encodeURIComponent(id)>.jsonl, its header holding the
// metadata. A session is open once per repository.
type JSONLRepo struct {
	env  env.Env
	fs   env.DirFS
	opts JSONLOptions

	mu      sync.Mutex
	open    map[string]*jsonl.Store // by sessionKey(cwd, id)
	pending map[string]bool
	closed  bool
}

var _ Repo = (*JSONLRepo)(nil)

// NewJSONL returns a repository over e's file system, which must list
// directories (env.DirFS).
func NewJSONL(e env.Env, o JSONLOptions) (*JSONLRepo, error) {
	fsys, err := env.AsDirFS(e.FS)
	if err != nil {
		return nil, fmt.Errorf("sessionrepo: %w", err)
	}
	if !filepath.IsAbs(o.Cwd) {
		return nil, fmt.Errorf("sessionrepo: the repository's cwd %q is not absolute", o.Cwd)
	}
	return &JSONLRepo{env: e, fs: fsys, opts: o, open: map[string]*jsonl.Store{}, pending: map[string]bool{}}, nil
}

var errJSONLRepoClosed = errors.New("JsonlSessionRepo is closed")

func (r *JSONLRepo) assertOpen() error {
	if r.closed {
		return errJSONLRepoClosed
	}
	return nil
}

// absolutePath is NodeExecutionEnv.absolutePath (resolvePath): a file URL
// becomes its path, an absolute path is cleaned, a relative one is joined
// to the repository's cwd. (pi also expands ~ to the home directory,
// which the repository does not read: such a path stays relative.)
func (r *JSONLRepo) absolutePath(p string) string {
	if strings.HasPrefix(p, "file://") {
		if u, err := url.Parse(p); err == nil && u.Host == "" && u.Path != "" {
			p = u.Path
		}
	}
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(r.opts.Cwd, p)
}

func (r *JSONLRepo) root() string { return r.absolutePath(r.opts.Root) }

// SessionDirectoryName is repo.ts sessionDirectoryName: the cwd without
// its leading separator, each / \ or : replaced by -, between -- and --.
func SessionDirectoryName(cwd string) string {
	if strings.HasPrefix(cwd, "/") || strings.HasPrefix(cwd, `\`) {
		cwd = cwd[1:]
	}
	return "--" + strings.NewReplacer("/", "-", `\`, "-", ":", "-").Replace(cwd) + "--"
}

// SessionFileName is repo.ts sessionFileName: createdAt as
// Date.toISOString with : and . replaced by -, then _, the id as
// encodeURIComponent, and .jsonl.
func SessionFileName(createdAt int64, id string) (string, error) {
	ts, err := isoTimestamp(createdAt)
	if err != nil {
		return "", err
	}
	return strings.NewReplacer(":", "-", ".", "-").Replace(ts) + "_" + EncodeURIComponent(id) + ".jsonl", nil
}

// isoTimestamp is JS Date.prototype.toISOString, whose range is ±8.64e15
// ms; beyond it JS throws a RangeError.
func isoTimestamp(ms int64) (string, error) {
	const maxTime = 8_640_000_000_000_000
	if ms > maxTime || ms < -maxTime {
		return "", errors.New("Invalid time value")
	}
	t := time.UnixMilli(ms).UTC()
	year := t.Year()
	var y string
	switch {
	case year >= 0 && year <= 9999:
		y = fmt.Sprintf("%04d", year)
	case year < 0:
		y = fmt.Sprintf("-%06d", -year)
	default:
		y = fmt.Sprintf("+%06d", year)
	}
	return y + t.Format("-01-02T15:04:05.000Z"), nil
}

// EncodeURIComponent is JS encodeURIComponent of a UTF-8 string: every
// byte but A–Z a–z 0–9 - _ . ! ~ * ' ( ) as %XX.
func EncodeURIComponent(s string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("-_.!~*'()", c) >= 0 {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&15])
	}
	return b.String()
}

func sessionKey(cwd, id string) string { return cwd + "\x00" + id }

func metaCwd(m Metadata) string {
	if m.Cwd == nil {
		return ""
	}
	return *m.Cwd
}

// metadataFromHeader is repo.ts metadataFromHeader.
func metadataFromHeader(h jsonl.Header, path string, modifiedAt float64) Metadata {
	cwd := h.Cwd
	return Metadata{ID: h.ID, CreatedAt: h.CreatedAt, StorageVersion: h.StorageVersion, Cwd: &cwd, Path: path,
		ModifiedAt: &modifiedAt, ParentSessionID: h.ParentSessionID, LegacyParentSessionPath: h.LegacyParentSessionPath}
}

// reserve claims key for a session being created or forked (pi's
// pendingCreates), refusing one open or being created.
func (r *JSONLRepo) reserve(key, id string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.assertOpen(); err != nil {
		return err
	}
	if r.open[key] != nil || r.pending[key] {
		return fmt.Errorf("Session already exists: %s", id)
	}
	r.pending[key] = true
	return nil
}

func (r *JSONLRepo) release(key string) {
	r.mu.Lock()
	delete(r.pending, key)
	r.mu.Unlock()
}

// Create is pi's JsonlSessionRepo.create.
func (r *JSONLRepo) Create(o CreateOptions) (*Session, error) {
	createdAt := r.env.Clock.Now().UnixMilli()
	cwd := r.opts.Cwd
	if o.Cwd != "" {
		cwd = r.absolutePath(o.Cwd)
	}
	id := o.ID
	if id == "" {
		id = r.env.IDs.NewID()
	}
	key := sessionKey(cwd, id)
	if err := r.reserve(key, id); err != nil {
		return nil, err
	}
	defer r.release(key)
	path, err := r.newSessionPath(cwd, createdAt, id)
	if err != nil {
		return nil, err
	}
	h := jsonl.Header{ID: id, StorageVersion: StorageVersion, CreatedAt: createdAt, Cwd: cwd, ParentSessionID: o.ParentSessionID}
	st, err := jsonl.Create(r.env, path, h, r.opts.Store)
	if err != nil {
		r.removeQuietly(path)
		return nil, err
	}
	return r.publishNew(st, h, path, key)
}

// publishNew stamps a new file's metadata and publishes its session; on
// failure the file goes.
func (r *JSONLRepo) publishNew(st *jsonl.Store, h jsonl.Header, path, key string) (*Session, error) {
	mtime, err := r.fs.ModTimeMs(path)
	if err != nil {
		err = fmt.Errorf("Failed to read session %s: %w", path, err)
	} else {
		var s *Session
		if s, err = r.publish(metadataFromHeader(h, path, mtime), st, key); err == nil {
			return s, nil
		}
	}
	_ = st.Close()
	r.removeQuietly(path)
	return nil, err
}

func (r *JSONLRepo) removeQuietly(path string) {
	if ok, _ := r.fs.Exists(path); ok {
		_ = r.fs.Remove(path)
	}
}

// publish is pi's publishOpenSession: the session is open until closed.
func (r *JSONLRepo) publish(m Metadata, st *jsonl.Store, key string) (*Session, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.open[key] != nil {
		return nil, fmt.Errorf("Session is already open: %s", m.ID)
	}
	r.open[key] = st
	return &Session{Metadata: m, Storage: st, close: func() error {
		err := st.Close()
		r.mu.Lock()
		if r.open[key] == st {
			delete(r.open, key)
		}
		r.mu.Unlock()
		return err
	}}, nil
}

// newSessionPath is pi's resolveNewSessionPath: the id must be new in its
// cwd's directory, which is created.
func (r *JSONLRepo) newSessionPath(cwd string, createdAt int64, id string) (string, error) {
	dir := filepath.Join(r.root(), SessionDirectoryName(cwd))
	if err := r.assertIDAvailable(dir, id); err != nil {
		return "", err
	}
	if err := r.fs.MkdirAll(dir); err != nil {
		return "", fmt.Errorf("Failed to create sessions directory %s: %w", dir, err)
	}
	name, err := SessionFileName(createdAt, id)
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, name), nil
}

// assertIDAvailable is pi's assertSessionIdAvailable.
func (r *JSONLRepo) assertIDAvailable(dir, id string) error {
	exists, err := r.fs.Exists(dir)
	if err != nil {
		return fmt.Errorf("Failed to check sessions directory %s: %w", dir, err)
	}
	if !exists {
		return nil
	}
	names, err := r.fs.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("Failed to list sessions directory %s: %w", dir, err)
	}
	suffix := "_" + EncodeURIComponent(id) + ".jsonl"
	for _, n := range names {
		if !n.Dir && strings.HasSuffix(n.Name, suffix) {
			return fmt.Errorf("Session already exists: %s", id)
		}
	}
	return nil
}

// Open is pi's JsonlSessionRepo.open.
func (r *JSONLRepo) Open(m Metadata) (*Session, error) {
	key := sessionKey(metaCwd(m), m.ID)
	r.mu.Lock()
	if err := r.assertOpen(); err != nil {
		r.mu.Unlock()
		return nil, err
	}
	if r.open[key] != nil || r.pending[key] {
		r.mu.Unlock()
		return nil, fmt.Errorf("Session is already open: %s", m.ID)
	}
	r.pending[key] = true
	r.mu.Unlock()
	defer r.release(key)
	st, err := r.load(m)
	if err != nil {
		return nil, err
	}
	s, err := r.publish(m, st, key)
	if err != nil {
		_ = st.Close()
		return nil, err
	}
	return s, nil
}

// load is pi's loadStorage: the file must exist and its header name the
// metadata's session.
func (r *JSONLRepo) load(m Metadata) (*jsonl.Store, error) {
	exists, err := r.fs.Exists(m.Path)
	if err != nil {
		return nil, fmt.Errorf("Failed to check session %s: %w", m.Path, err)
	}
	if !exists {
		return nil, fmt.Errorf("Session file does not exist: %s", m.Path)
	}
	st, err := jsonl.Open(r.env, m.Path, r.opts.Store)
	if err != nil {
		return nil, err
	}
	if h := st.Header(); h.ID != m.ID || h.Cwd != metaCwd(m) {
		_ = st.Close()
		return nil, fmt.Errorf("Session identity does not match header: %s", m.ID)
	}
	return st, nil
}

// maxHeaderBytes bounds the header line List reads from each file.
const maxHeaderBytes = 1 << 20

// List is pi's JsonlSessionRepo.list: the sessions of every cwd directory
// under Root (or of o.Cwd's), newest first, then by id and cwd. A file
// whose first line is not a session header is skipped, as pi skips it; a
// v3 legacy file is listed with the metadata pi's
// metadataFromLegacyV3Header gives it (jsonl/legacy-v3.ts), and opens
// through pi's v3 import (jsonl.Open). (pi orders ties by
// String.localeCompare; here by code unit order.)
func (r *JSONLRepo) List(o ListOptions) ([]Metadata, error) {
	r.mu.Lock()
	err := r.assertOpen()
	r.mu.Unlock()
	if err != nil {
		return nil, err
	}
	root := r.root()
	exists, err := r.fs.Exists(root)
	if err != nil {
		return nil, fmt.Errorf("Failed to check sessions root %s: %w", root, err)
	}
	if !exists {
		return []Metadata{}, nil
	}
	var cwd string
	var dirs []string
	if o.Cwd != "" {
		cwd = r.absolutePath(o.Cwd)
		dirs = []string{filepath.Join(root, SessionDirectoryName(cwd))}
	} else {
		names, err := r.fs.ReadDir(root)
		if err != nil {
			return nil, fmt.Errorf("Failed to list sessions root %s: %w", root, err)
		}
		for _, n := range names {
			if n.Dir {
				dirs = append(dirs, filepath.Join(root, n.Name))
			}
		}
	}
	out := []Metadata{}
	for _, dir := range dirs {
		ms, err := r.listDirectory(dir, cwd)
		if err != nil {
			return nil, err
		}
		out = append(out, ms...)
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.CreatedAt != b.CreatedAt {
			return a.CreatedAt > b.CreatedAt
		}
		if a.ID != b.ID {
			return a.ID < b.ID
		}
		return metaCwd(a) < metaCwd(b)
	})
	return out, nil
}

// listDirectory is pi's listDirectory.
func (r *JSONLRepo) listDirectory(dir, cwd string) ([]Metadata, error) {
	exists, err := r.fs.Exists(dir)
	if err != nil {
		return nil, fmt.Errorf("Failed to check sessions directory %s: %w", dir, err)
	}
	if !exists {
		return nil, nil
	}
	names, err := r.fs.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("Failed to list sessions directory %s: %w", dir, err)
	}
	var out []Metadata
	for _, n := range names {
		if n.Dir || !strings.HasSuffix(n.Name, ".jsonl") {
			continue
		}
		path := filepath.Join(dir, n.Name)
		head, err := r.fs.ReadHead(path, maxHeaderBytes)
		if err != nil {
			return nil, fmt.Errorf("Failed to read session header %s: %w", path, err)
		}
		line, _, _ := bytes.Cut(head, []byte("\n"))
		line = bytes.TrimSuffix(line, []byte("\r"))
		h, err := jsonl.ParseSessionHeader(r.fs, line)
		if err != nil {
			continue
		}
		// Directory names are lossy: /a/b and /a-b share --a-b--.
		if cwd == "" || h.Cwd == cwd {
			out = append(out, metadataFromHeader(h, path, n.ModTimeMs))
		}
	}
	return out, nil
}

// Delete is pi's JsonlSessionRepo.delete: the session's file goes, unless
// the session is open.
func (r *JSONLRepo) Delete(m Metadata) error {
	r.mu.Lock()
	err := r.assertOpen()
	if err == nil && (r.open[sessionKey(metaCwd(m), m.ID)] != nil) {
		err = fmt.Errorf("Session is open: %s", m.ID)
	}
	r.mu.Unlock()
	if err != nil {
		return err
	}
	exists, err := r.fs.Exists(m.Path)
	if err != nil {
		return fmt.Errorf("Failed to check session %s: %w", m.Path, err)
	}
	if !exists {
		return fmt.Errorf("Session file does not exist: %s", m.Path)
	}
	if err := r.fs.Remove(m.Path); err != nil {
		return fmt.Errorf("Failed to delete session %s: %w", m.Path, err)
	}
	return nil
}

// Fork is pi's JsonlSessionRepo.fork: capture the source at one boundary
// between its commits (from its open store, or from its file), build pi's
// fork snapshot, and publish it as a new file whose header names the
// source as parent and carries the snapshot's nextSeq (pi's
// JsonlStorage.createFromForkSnapshot). Unlike pi's JSONL repository, the
// destination is reserved before the source is captured, as pi's memory
// and SQLite repositories reserve it: a create of the same id that starts
// after the fork fails, which pi's own suite asks ("publishes fork when it
// reserves a shared destination id first") and pi's JSONL repository
// fails.
func (r *JSONLRepo) Fork(source Metadata, o ForkOptions) (*Session, error) {
	createdAt := r.env.Clock.Now().UnixMilli()
	cwd := r.absolutePath(metaCwd(source))
	id := o.ID
	if id == "" {
		id = r.env.IDs.NewID()
	}
	key := sessionKey(cwd, id)
	if err := r.reserve(key, id); err != nil {
		return nil, err
	}
	defer r.release(key)
	captured, err := r.captureSource(source)
	if err != nil {
		return nil, err
	}
	path, err := r.newSessionPath(cwd, createdAt, id)
	if err != nil {
		return nil, err
	}
	snap, err := fork.Create(captured, o.Options)
	if err != nil {
		return nil, err
	}
	parent := source.ID
	h := jsonl.Header{ID: id, StorageVersion: StorageVersion, CreatedAt: createdAt, Cwd: cwd, ParentSessionID: &parent}
	st, err := jsonl.CreateFromForkSnapshot(r.env, path, h, snap, r.opts.Store)
	if err != nil {
		r.removeQuietly(path)
		return nil, err
	}
	return r.publishNew(st, st.Header(), path, key)
}

// captureSource is pi's fork source: captureForkSource on the open store,
// or on the file opened for the purpose (loadClosedForkSourceSnapshot).
func (r *JSONLRepo) captureSource(source Metadata) (fork.Source, error) {
	r.mu.Lock()
	st := r.open[sessionKey(metaCwd(source), source.ID)]
	r.mu.Unlock()
	if st != nil {
		return st.CaptureForkSource()
	}
	return captureClosed(func() (forkSourcer, error) { return r.load(source) })
}

// Close is pi's JsonlSessionRepo.close: later calls fail; open sessions
// stay open.
func (r *JSONLRepo) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closed = true
	return nil
}
