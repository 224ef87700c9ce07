package sessionrepo

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/frameproof/frameproof/impl/env"
	"github.com/frameproof/frameproof/impl/env/envtest"
	"github.com/frameproof/frameproof/impl/store"
	"github.com/frameproof/frameproof/impl/store/fork"
	"github.com/frameproof/frameproof/impl/store/jsonl"
	"github.com/frameproof/frameproof/impl/store/sqlite"
)

const now = 1_700_000_000_000

func testEnv() env.Env {
	return env.Env{Clock: envtest.NewClock(now), FS: env.OSFS{}, IDs: envtest.IDsAfter(0), Executor: env.Goroutines{}}
}

func newJSONL(t *testing.T) (*JSONLRepo, string) {
	t.Helper()
	dir := t.TempDir()
	r, err := NewJSONL(testEnv(), JSONLOptions{Root: "sessions", Cwd: dir, Store: jsonl.Options{Sync: jsonl.SyncNever}})
	require.NoError(t, err)
	return r, dir
}

// pi: session/jsonl/repo.ts sessionDirectoryName and sessionFileName
// (Date.toISOString with : and . as -, encodeURIComponent of the id).
func TestJSONLNames(t *testing.T) {
	assert.Equal(t, "--workspace--", SessionDirectoryName("/workspace"))
	assert.Equal(t, "--C--a-b-c--", SessionDirectoryName(`C:\a/b:c`))
	assert.Equal(t, "--a-b--", SessionDirectoryName(`\a\b`))
	name, err := SessionFileName(now, "a b/c?é")
	require.NoError(t, err)
	assert.Equal(t, "2023-11-14T22-13-20-000Z_a%20b%2Fc%3F%C3%A9.jsonl", name)
	name, err = SessionFileName(0, "-_.!~*'()")
	require.NoError(t, err)
	assert.Equal(t, "1970-01-01T00-00-00-000Z_-_.!~*'().jsonl", name)
	name, err = SessionFileName(-1, "x")
	require.NoError(t, err)
	assert.Equal(t, "1969-12-31T23-59-59-999Z_x.jsonl", name)
	name, err = SessionFileName(253402300800000, "x") // year 10000
	require.NoError(t, err)
	assert.Equal(t, "+010000-01-01T00-00-00-000Z_x.jsonl", name)
	_, err = SessionFileName(8_640_000_000_000_001, "x")
	assert.EqualError(t, err, "Invalid time value")
}

// pi: session/jsonl/repo.ts JsonlSessionRepo.create — the header is
// {v:4, kind:"header", id, storageVersion:1, createdAt, cwd,
// parentSessionId?} in <root>/--cwd--/<iso>_<id>.jsonl; metadata comes from
// it (metadataFromHeader) with path and modifiedAt.
func TestJSONLCreateLayout(t *testing.T) {
	r, dir := newJSONL(t)
	parent := "parent"
	s, err := r.Create(CreateOptions{ID: "s 1", ParentSessionID: &parent})
	require.NoError(t, err)
	want := filepath.Join(dir, "sessions", SessionDirectoryName(dir), "2023-11-14T22-13-20-000Z_s%201.jsonl")
	assert.Equal(t, want, s.Metadata.Path)
	content, err := os.ReadFile(want)
	require.NoError(t, err)
	assert.Equal(t, `{"v":4,"kind":"header","id":"s 1","storageVersion":1,"createdAt":1700000000000,"cwd":"`+dir+`","parentSessionId":"parent"}`+"\n", string(content))
	b, err := json.Marshal(s.Metadata)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(b), `{"id":"s 1","createdAt":1700000000000,"storageVersion":1,"cwd":"`+dir+`","path":"`+want+`","modifiedAt":`), string(b))
	assert.True(t, strings.HasSuffix(string(b), `,"parentSessionId":"parent"}`), string(b))
	require.NoError(t, s.Close())

	other, err := r.Create(CreateOptions{ID: "t", Cwd: "sub"})
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(dir, "sub"), *other.Metadata.Cwd, "a relative cwd resolves against the repository's (absolutePath)")
	require.NoError(t, other.Close())
}

// pi's lifecycle and ownership errors: session/jsonl/repo.ts create, open,
// delete, loadStorage.
func TestJSONLLifecycle(t *testing.T) {
	r, _ := newJSONL(t)
	s, err := r.Create(CreateOptions{ID: "s"})
	require.NoError(t, err)
	_, err = r.Create(CreateOptions{ID: "s"})
	assert.EqualError(t, err, "Session already exists: s")
	_, err = r.Open(s.Metadata)
	assert.EqualError(t, err, "Session is already open: s")
	assert.EqualError(t, r.Delete(s.Metadata), "Session is open: s")
	name, err := store.SetValue(store.ValueAddr[string]{Address: store.Address{Namespace: "pi.session.name", Kind: store.KindValue}}, "kept")
	require.NoError(t, err)
	_, err = s.Storage.Commit([]store.Write{name})
	require.NoError(t, err)
	require.NoError(t, s.Close())
	require.NoError(t, s.Close(), "closing twice is a no-op")

	// A second session created at the same millisecond lists after by id.
	s2, err := r.Create(CreateOptions{ID: "a"})
	require.NoError(t, err)
	require.NoError(t, s2.Close())
	listed, err := r.List(ListOptions{})
	require.NoError(t, err)
	require.Len(t, listed, 2)
	assert.Equal(t, []string{"a", "s"}, []string{listed[0].ID, listed[1].ID})

	reopened, err := r.Open(s.Metadata)
	require.NoError(t, err)
	v, err := reopened.Storage.GetValue(store.Address{Namespace: "pi.session.name", Kind: store.KindValue})
	require.NoError(t, err)
	require.NotNil(t, v)
	assert.Equal(t, `"kept"`, string(v.Value))
	require.NoError(t, reopened.Close())

	wrong := s.Metadata
	wrong.ID = "other"
	_, err = r.Open(wrong)
	assert.EqualError(t, err, "Session identity does not match header: other")

	require.NoError(t, r.Delete(s.Metadata))
	_, err = r.Open(s.Metadata)
	assert.EqualError(t, err, "Session file does not exist: "+s.Metadata.Path)
	assert.EqualError(t, r.Delete(s.Metadata), "Session file does not exist: "+s.Metadata.Path)

	require.NoError(t, r.Close())
	_, err = r.Create(CreateOptions{})
	assert.EqualError(t, err, "JsonlSessionRepo is closed")
}

// pi: session/jsonl/repo.ts list — non-session files and other cwds'
// sessions (by the header, since directory names are lossy) are skipped.
func TestJSONLListFilters(t *testing.T) {
	r, dir := newJSONL(t)
	a, err := r.Create(CreateOptions{ID: "a", Cwd: "/a/b"})
	require.NoError(t, err)
	b, err := r.Create(CreateOptions{ID: "b", Cwd: "/a-b"})
	require.NoError(t, err)
	require.NoError(t, a.Close())
	require.NoError(t, b.Close())
	sessDir := filepath.Join(dir, "sessions", "--a-b--")
	require.NoError(t, os.WriteFile(filepath.Join(sessDir, "junk.jsonl"), []byte("not json\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(sessDir, "notes.txt"), []byte("x"), 0o644))
	all, err := r.List(ListOptions{})
	require.NoError(t, err)
	assert.Len(t, all, 2)
	only, err := r.List(ListOptions{Cwd: "/a/b"})
	require.NoError(t, err)
	require.Len(t, only, 1)
	assert.Equal(t, "a", only[0].ID)
	empty, err := NewJSONL(testEnv(), JSONLOptions{Root: "none", Cwd: dir})
	require.NoError(t, err)
	none, err := empty.List(ListOptions{})
	require.NoError(t, err)
	assert.Empty(t, none)
}

func commitSource(t *testing.T, st store.Storage) {
	t.Helper()
	set := func(ns, key, raw string) store.Write {
		return store.SetValueRaw(store.Address{Namespace: ns, Key: key, Kind: store.KindValue}, json.RawMessage(raw))
	}
	rootID := "r"
	_, err := st.Commit([]store.Write{
		store.InsertEntry(store.Entry{ID: rootID, Raw: json.RawMessage(`{"id":"r","parentId":null,"type":"custom","customType":"root"}`)}),
		store.InsertEntry(store.Entry{ID: "c", ParentID: &rootID, Raw: json.RawMessage(`{"id":"c","parentId":"r","type":"message","message":{"role":"user","content":"x","timestamp":1}}`)}),
		set(fork.NSBranchTip, "main", `"c"`),
		set(fork.NSLaneConfig, "main", `{"model":{"provider":"p","modelId":"m"},"thinkingLevel":"off","activeToolNames":[]}`),
		set(fork.NSLaneState, "main", `{"currentOperationId":"op","lastOperationId":null,"inbox":[]}`),
		set("pi.op.state", "op", `{}`),
		set("app", "", `1`),
		store.AppendListRaw(store.Address{Namespace: "app.list", Kind: store.KindList}, json.RawMessage(`1`)),
	})
	require.NoError(t, err)
}

// pi: session/jsonl/repo.ts fork + storage.ts createFromForkSnapshot — the
// destination's header names the source as parent and carries the
// snapshot's nextSeq; each write is its own line with its source seq.
func TestJSONLForkFile(t *testing.T) {
	r, _ := newJSONL(t)
	src, err := r.Create(CreateOptions{ID: "src"})
	require.NoError(t, err)
	commitSource(t, src.Storage)

	f, err := r.Fork(src.Metadata, ForkOptions{ID: "f", Options: fork.Options{Scope: fork.ScopeTree}})
	require.NoError(t, err)
	assert.Equal(t, "src", *f.Metadata.ParentSessionID)
	content, err := os.ReadFile(f.Metadata.Path)
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSuffix(string(content), "\n"), "\n")
	require.Len(t, lines, 7)
	assert.True(t, strings.HasSuffix(lines[0], `,"parentSessionId":"src","nextSeq":7}`), lines[0])
	assert.True(t, strings.HasPrefix(lines[1], `{"kind":"entry","id":"r",`), lines[1])
	assert.Equal(t, `{"kind":"value","op":"set","seq":5,"namespace":"pi.lane.state","key":"main","value":{"currentOperationId":null,"lastOperationId":null,"inbox":[]}}`, lines[5])
	assert.Equal(t, `{"kind":"value","op":"set","seq":6,"namespace":"app","key":"","value":1}`, lines[6])
	assert.Equal(t, int64(7), f.Storage.NextSeq())
	require.NoError(t, f.Close())

	// A closed source is captured from its file.
	require.NoError(t, src.Close())
	b, err := r.Fork(src.Metadata, ForkOptions{ID: "b", Options: fork.Options{Scope: fork.ScopeBranch, Branch: "main"}})
	require.NoError(t, err)
	v, err := b.Storage.GetValue(store.Address{Namespace: "app", Kind: store.KindValue})
	require.NoError(t, err)
	assert.Nil(t, v, "a branch fork copies no application value")
	require.NoError(t, b.Close())

	// A refused fork leaves no file and releases its id.
	_, err = r.Fork(src.Metadata, ForkOptions{ID: "x", Options: fork.Options{Scope: fork.ScopeBranch, Branch: "none"}})
	require.EqualError(t, err, "Unknown source branch: none")
	x, err := r.Create(CreateOptions{ID: "x"})
	require.NoError(t, err)
	require.NoError(t, x.Close())
	_, err = r.Fork(src.Metadata, ForkOptions{ID: "x", Options: fork.Options{Scope: fork.ScopeTree}})
	require.EqualError(t, err, "Session already exists: x")
}

// pi: session/memory.ts MemorySessionRepo — its errors, a closed session's
// facade refusing calls, its store kept for a reopen and a fork.
func TestMemoryRepo(t *testing.T) {
	r := NewMemory(testEnv())
	s, err := r.Create(CreateOptions{ID: "s"})
	require.NoError(t, err)
	assert.Equal(t, Metadata{ID: "s", CreatedAt: now, StorageVersion: 1}, s.Metadata)
	_, err = r.Create(CreateOptions{ID: "s"})
	assert.EqualError(t, err, "Session already exists: s")
	_, err = r.Open(s.Metadata)
	assert.EqualError(t, err, "Session is already open: s")
	assert.EqualError(t, r.Delete(s.Metadata), "Session is open: s")
	commitSource(t, s.Storage)
	require.NoError(t, s.Close())
	_, err = s.Storage.GetStats()
	assert.EqualError(t, err, "Session is closed")

	f, err := r.Fork(s.Metadata, ForkOptions{Options: fork.Options{Scope: fork.ScopeBranch, Branch: "main", Position: fork.Before, EntryID: strPtr("c")}})
	require.NoError(t, err)
	assert.NotEmpty(t, f.Metadata.ID, "a fork without an id gets a fresh one")
	assert.Equal(t, "s", *f.Metadata.ParentSessionID)
	tip, err := f.Storage.GetValue(store.Address{Namespace: fork.NSBranchTip, Key: "main", Kind: store.KindValue})
	require.NoError(t, err)
	assert.Equal(t, `"r"`, string(tip.Value))
	stats, err := f.Storage.GetStats()
	require.NoError(t, err)
	assert.Equal(t, 0, int(stats.MessageCount))

	reopened, err := r.Open(s.Metadata)
	require.NoError(t, err)
	stats, err = reopened.Storage.GetStats()
	require.NoError(t, err)
	assert.Equal(t, 1, int(stats.MessageCount))
	require.NoError(t, reopened.Close())

	listed, err := r.List(ListOptions{})
	require.NoError(t, err)
	assert.Equal(t, []string{"s", f.Metadata.ID}, []string{listed[0].ID, listed[1].ID})
	require.NoError(t, r.Delete(s.Metadata))
	_, err = r.Open(s.Metadata)
	assert.EqualError(t, err, "Unknown session: s")
	_, err = r.Fork(s.Metadata, ForkOptions{Options: fork.Options{Scope: fork.ScopeTree}})
	assert.EqualError(t, err, "Unknown session: s")
	require.NoError(t, r.Close())
	_, err = r.List(ListOptions{})
	assert.EqualError(t, err, "MemorySessionRepo is closed")
}

func strPtr(s string) *string { return &s }

// pi: session/jsonl/repo.ts readSessionMetadata lists a v3 file with
// legacy-v3.ts metadataFromLegacyV3Header (createdAt = Date.parse of its
// timestamp, storage version 1, parentSession resolved to the parent's id
// when its first line is a session header, else kept as
// legacyParentSessionPath), and open imports it (JsonlStorage.openLegacyV3).
func TestJSONLListsAndOpensV3(t *testing.T) {
	r, dir := newJSONL(t)
	sessions := filepath.Join(dir, "sessions", SessionDirectoryName(dir))
	require.NoError(t, os.MkdirAll(sessions, 0o755))
	parent := filepath.Join(sessions, "parent.jsonl")
	require.NoError(t, os.WriteFile(parent, []byte(`{"type":"session","version":3,"id":"p3","timestamp":"2020-01-01T00:00:00Z","cwd":"`+dir+`"}`+"\n"), 0o644))
	child := `{"type":"session","version":3,"id":"c3","timestamp":"2020-09-13T12:26:40.000Z","cwd":"` + dir + `","parentSession":"` + parent + `"}` + "\n" +
		`{"type":"message","id":"u","parentId":null,"timestamp":"2020-09-13T12:26:40.001Z","message":{"role":"user","content":"hi","timestamp":1}}` + "\n"
	require.NoError(t, os.WriteFile(filepath.Join(sessions, "child.jsonl"), []byte(child), 0o644))
	orphan := `{"type":"session","version":3,"id":"o3","timestamp":"2019-01-01T00:00:00Z","cwd":"` + dir + `","parentSession":"/nowhere.jsonl"}` + "\n"
	require.NoError(t, os.WriteFile(filepath.Join(sessions, "orphan.jsonl"), []byte(orphan), 0o644))

	listed, err := r.List(ListOptions{})
	require.NoError(t, err)
	require.Len(t, listed, 3)
	assert.Equal(t, []string{"c3", "p3", "o3"}, []string{listed[0].ID, listed[1].ID, listed[2].ID})
	c := listed[0]
	assert.Equal(t, int64(1_600_000_000_000), c.CreatedAt)
	assert.Equal(t, int64(1), c.StorageVersion)
	require.NotNil(t, c.ParentSessionID)
	assert.Equal(t, "p3", *c.ParentSessionID)
	assert.Nil(t, c.LegacyParentSessionPath)
	require.NotNil(t, listed[2].LegacyParentSessionPath)
	assert.Equal(t, "/nowhere.jsonl", *listed[2].LegacyParentSessionPath)

	s, err := r.Open(c)
	require.NoError(t, err)
	es, err := s.Storage.Entries()
	require.NoError(t, err)
	require.Len(t, es, 1)
	assert.Contains(t, string(es[0].Entry.Raw), `"content":"hi"`)
	require.NoError(t, s.Close())
}

// The SQLite repository (no pi counterpart in 0.85.1; pi's session-repo
// suite runs on it in props/pistorage): one database per session whose
// sessions row is its metadata; a fork keeps its source's seqs and next
// seq (session/fork.ts createForkSnapshot) and names its parent.
func TestSQLiteRepoLifecycle(t *testing.T) {
	dir := t.TempDir()
	r, err := NewSQLite(testEnv(), filepath.Join(dir, "db"), sqlite.Options{Sync: sqlite.SyncNever})
	require.NoError(t, err)
	s, err := r.Create(CreateOptions{ID: "a/b"})
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(dir, "db", "a%2Fb.sqlite"), s.Metadata.Path)
	_, err = s.Storage.Commit([]store.Write{
		store.InsertEntry(store.Entry{ID: "e1", Raw: json.RawMessage(`{"id":"e1","parentId":null,"type":"custom","customType":"x"}`)}),
		store.SetValueRaw(store.Address{Namespace: "pi.branch.tip", Key: "main", Kind: store.KindValue}, json.RawMessage(`"e1"`)),
	})
	require.NoError(t, err)
	_, err = r.Open(s.Metadata)
	require.EqualError(t, err, "Session is already open: a/b")
	require.EqualError(t, r.Delete(s.Metadata), "Session is open: a/b")
	_, err = r.Create(CreateOptions{ID: "a/b"})
	require.EqualError(t, err, "Session already exists: a/b")

	f, err := r.Fork(s.Metadata, ForkOptions{ID: "f", Options: fork.Options{Scope: fork.ScopeTree}})
	require.NoError(t, err)
	require.NotNil(t, f.Metadata.ParentSessionID)
	assert.Equal(t, "a/b", *f.Metadata.ParentSessionID)
	es, err := f.Storage.Entries()
	require.NoError(t, err)
	require.Len(t, es, 1)
	assert.Equal(t, int64(1), es[0].Seq)
	require.NoError(t, f.Close())
	require.NoError(t, s.Close())

	listed, err := r.List(ListOptions{})
	require.NoError(t, err)
	assert.Equal(t, []string{"a/b", "f"}, []string{listed[0].ID, listed[1].ID})
	again, err := r.Open(listed[1])
	require.NoError(t, err)
	tip, err := again.Storage.GetValue(store.Address{Namespace: "pi.branch.tip", Key: "main"})
	require.NoError(t, err)
	assert.Equal(t, `"e1"`, string(tip.Value))
	require.NoError(t, again.Close())
	require.NoError(t, r.Delete(listed[1]))
	require.EqualError(t, r.Delete(listed[1]), "Session file does not exist: "+listed[1].Path)
	listed, err = r.List(ListOptions{})
	require.NoError(t, err)
	assert.Len(t, listed, 1)
}
