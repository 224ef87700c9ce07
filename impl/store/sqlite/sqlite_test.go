package sqlite_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/frameproof/frameproof/impl/env/envtest"
	"github.com/frameproof/frameproof/impl/store"
	"github.com/frameproof/frameproof/impl/store/memory"
	"github.com/frameproof/frameproof/impl/store/sqlite"
)

func entry(id string, parent *string) store.Write {
	p := "null"
	if parent != nil {
		p = fmt.Sprintf("%q", *parent)
	}
	raw := fmt.Sprintf(`{"type":"message","id":%q,"parentId":%s,"n":1}`, id, p)
	return store.InsertEntry(store.Entry{ID: id, ParentID: parent, Raw: json.RawMessage(raw)})
}

func usage(id string) store.Write {
	return store.InsertUsage(store.UsageRow{ID: id, Raw: json.RawMessage(fmt.Sprintf(`{"id":%q,"usage":{"input":1,"cost":{"total":0}},"adjustment":false}`, id))})
}

var (
	namespaces = []string{"a", "b", "pi.pending.assistant_frame"}
	keys       = []string{"", "k", "k1", "k\u00e9", "kz", "op:r"}
	ids        = []string{"e1", "e2", "e3", "e4", "u1", "u2"}
)

func genWrite(t *rapid.T) store.Write {
	ns := rapid.SampledFrom(namespaces).Draw(t, "ns")
	key := rapid.SampledFrom(keys).Draw(t, "key")
	addr := store.Address{Namespace: ns, Key: key}
	val := json.RawMessage(fmt.Sprintf(`{"v": %d}`, rapid.IntRange(0, 99).Draw(t, "v")))
	switch rapid.IntRange(0, 5).Draw(t, "kind") {
	case 0:
		var parent *string
		if rapid.Bool().Draw(t, "hasParent") {
			p := rapid.SampledFrom(ids).Draw(t, "parent")
			parent = &p
		}
		return entry(rapid.SampledFrom(ids).Draw(t, "id"), parent)
	case 1:
		return usage(rapid.SampledFrom(ids).Draw(t, "id"))
	case 2:
		return store.SetValueRaw(addr, val)
	case 3:
		return store.DeleteValueRaw(addr)
	case 4:
		return store.AppendListRaw(addr, val)
	default:
		return store.DeleteListRaw(addr)
	}
}

// diffReads compares every read of two stores.
func diffReads(t require.TestingT, want, got store.Storage) {
	require.Equal(t, want.NextSeq(), got.NextSeq(), "NextSeq")
	we, err := want.Entries()
	require.NoError(t, err)
	ge, err := got.Entries()
	require.NoError(t, err)
	require.Empty(t, cmp.Diff(we, ge), "Entries")
	wu, _ := want.Usage()
	gu, err := got.Usage()
	require.NoError(t, err)
	require.Empty(t, cmp.Diff(wu, gu), "Usage")
	for _, ns := range namespaces {
		for _, prefix := range []string{"", "k", "k1", "z"} {
			wv, _ := want.ScanValues(ns, prefix)
			gv, err := got.ScanValues(ns, prefix)
			require.NoError(t, err)
			require.Empty(t, cmp.Diff(wv, gv), "ScanValues %s %q", ns, prefix)
		}
		for _, key := range keys {
			addr := store.Address{Namespace: ns, Key: key}
			wv, _ := want.GetValue(store.Address{Namespace: ns, Key: key, Kind: store.KindValue})
			gv, err := got.GetValue(store.Address{Namespace: ns, Key: key, Kind: store.KindValue})
			require.NoError(t, err)
			require.Empty(t, cmp.Diff(wv, gv), "GetValue %s %q", ns, key)
			for _, o := range []store.ReadOptions{{}, {Order: store.Desc}, {Limit: 1}, {Cursor: ptr(int64(3)), Limit: 2}, {Cursor: ptr(int64(9)), Order: store.Desc}} {
				wl, werr := want.ReadList(addr, o)
				gl, gerr := got.ReadList(addr, o)
				require.Equal(t, werr, gerr)
				require.Empty(t, cmp.Diff(wl, gl), "ReadList %s %q %+v", ns, key, o)
			}
		}
	}
}

func ptr[T any](v T) *T { return &v }

// The SQLite backend answers every read exactly like the memory backend
// after the same commits, including rejected ones, across reopens.
// commitBoth commits writes to want and to got and requires the same
// answer: the same error, or the same result.
func commitBoth(rt *rapid.T, want, got store.Storage, writes []store.Write) {
	wr, werr := want.Commit(writes)
	gr, gerr := got.Commit(writes)
	if werr != nil {
		require.EqualError(rt, gerr, werr.Error())
		return
	}
	require.NoError(rt, gerr)
	require.Equal(rt, wr, gr)
}

func TestMatchesMemoryBackend(t *testing.T) {
	dir := t.TempDir()
	n := 0
	rapid.Check(t, func(rt *rapid.T) {
		n++
		path := filepath.Join(dir, fmt.Sprintf("s%d.db", n))
		mc, sc := envtest.NewTickClock(0), envtest.NewTickClock(0)
		mem := memory.New(mc)
		db, err := sqlite.Open(path, sc, sqlite.Options{Sync: sqlite.SyncNever})
		require.NoError(rt, err)
		defer func() { _ = db.Close() }()
		for range rapid.IntRange(1, 12).Draw(rt, "commits") {
			commitBoth(rt, mem, db, rapid.SliceOfN(rapid.Custom(genWrite), 0, 4).Draw(rt, "writes"))
			if rapid.IntRange(0, 5).Draw(rt, "reopen") == 0 {
				require.NoError(rt, db.Close())
				db, err = sqlite.Open(path, sc, sqlite.Options{Sync: sqlite.SyncNever})
				require.NoError(rt, err)
			}
		}
		diffReads(rt, mem, db)
	})
}

func TestCommitIsAllOrNothing(t *testing.T) {
	db, err := sqlite.Open(filepath.Join(t.TempDir(), "s.db"), envtest.NewTickClock(0), sqlite.Options{})
	require.NoError(t, err)
	defer db.Close()
	_, err = db.Commit([]store.Write{entry("a", nil)})
	require.NoError(t, err)
	addr := store.Address{Namespace: "n", Key: "k"}
	_, err = db.Commit([]store.Write{store.SetValueRaw(addr, json.RawMessage(`1`)), store.AppendListRaw(addr, json.RawMessage(`2`)), entry("b", ptr("missing"))})
	require.EqualError(t, err, "Missing parent entry: missing")
	v, err := db.GetValue(addr)
	require.NoError(t, err)
	assert.Nil(t, v)
	l, err := db.ReadList(addr, store.ReadOptions{})
	require.NoError(t, err)
	assert.Empty(t, l)
	assert.Equal(t, int64(2), db.NextSeq())
	_, err = db.Commit([]store.Write{usage("a")})
	require.EqualError(t, err, "Duplicate entry or usage id: a")

	r, err := db.Commit(nil)
	require.NoError(t, err)
	assert.Equal(t, int64(2), r.FirstSeq)
	assert.Empty(t, r.Seqs)
	_, err = db.ReadList(addr, store.ReadOptions{Limit: -1})
	require.ErrorIs(t, err, store.ErrInvalidListLimit)
}

func TestReopenKeepsNextSeqAndClosedErrors(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.db")
	db, err := sqlite.Open(path, envtest.NewTickClock(0), sqlite.Options{})
	require.NoError(t, err)
	addr := store.Address{Namespace: "n", Key: "k"}
	_, err = db.Commit([]store.Write{store.SetValueRaw(addr, json.RawMessage(`1`)), store.DeleteValueRaw(addr)})
	require.NoError(t, err)
	require.NoError(t, db.Close())
	require.NoError(t, db.Close(), "closing twice is a no-op")
	_, err = db.Commit(nil)
	require.ErrorIs(t, err, sqlite.ErrClosed)
	_, err = db.GetValue(addr)
	require.ErrorIs(t, err, sqlite.ErrClosed)

	db, err = sqlite.Open(path, envtest.NewTickClock(0), sqlite.Options{})
	require.NoError(t, err)
	defer db.Close()
	assert.Equal(t, int64(3), db.NextSeq(), "deleted writes still consumed their seqs")

	_, err = sqlite.Open(path, envtest.NewTickClock(0), sqlite.Options{Sync: "sometimes"})
	require.Error(t, err)
}

// TestOpenUsesTheExactPath: characters that mean something in a SQLite
// "file:" URI (?, #, %) are part of the file name, not URI syntax.
func TestOpenUsesTheExactPath(t *testing.T) {
	for _, name := range []string{"a?b.db", "a#b.db", "a%20b.db", "a b.db"} {
		dir := t.TempDir()
		p := filepath.Join(dir, name)
		db, err := sqlite.Open(p, envtest.NewTickClock(0), sqlite.Options{})
		require.NoError(t, err, name)
		require.NoError(t, db.Close())
		_, err = os.Stat(p)
		require.NoError(t, err, "%s: the database is at the given path", name)
	}
}

// TestInMemoryIsSharedAndTouchesNoFile: an InMemory database is shared by
// the stores open on its path, outlives any one of them but not the last,
// and never creates the file.
func TestInMemoryIsSharedAndTouchesNoFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.db")
	mem := sqlite.Options{Sync: sqlite.SyncNever, InMemory: true}
	a, err := sqlite.Open(path, envtest.NewTickClock(0), mem)
	require.NoError(t, err)
	addr := store.Address{Namespace: "n", Key: "k"}
	_, err = a.Commit([]store.Write{store.SetValueRaw(addr, json.RawMessage(`1`))})
	require.NoError(t, err)

	b, err := sqlite.Open(path, envtest.NewTickClock(0), mem)
	require.NoError(t, err)
	require.NoError(t, a.Close())
	assert.Equal(t, int64(2), b.NextSeq(), "the second store reads the first one's commit")
	v, err := b.GetValue(addr)
	require.NoError(t, err)
	require.NotNil(t, v)
	assert.JSONEq(t, `1`, string(v.Value))
	_, err = os.Stat(path)
	require.True(t, os.IsNotExist(err), "no file at %s: %v", path, err)
	require.NoError(t, b.Close())

	c, err := sqlite.Open(path, envtest.NewTickClock(0), mem)
	require.NoError(t, err)
	defer c.Close()
	assert.Equal(t, int64(1), c.NextSeq(), "closing the last store dropped the database")
}

// TestInMemoryStoresAreIndependent: new InMemory databases are copies of
// one schema template (createInMemory), so a commit to one is seen by no
// other path, and the template stays empty for the next.
func TestInMemoryStoresAreIndependent(t *testing.T) {
	dir := t.TempDir()
	mem := sqlite.Options{Sync: sqlite.SyncNever, InMemory: true}
	addr := store.Address{Namespace: "n", Key: "k"}
	for i := 0; i < 3; i++ {
		s, err := sqlite.Open(filepath.Join(dir, fmt.Sprintf("s%d.db", i)), envtest.NewTickClock(0), mem)
		require.NoError(t, err)
		defer s.Close()
		assert.Equal(t, int64(1), s.NextSeq(), "store %d starts empty", i)
		v, err := s.GetValue(addr)
		require.NoError(t, err)
		assert.Nil(t, v, "store %d sees no other store's value", i)
		_, err = s.Commit([]store.Write{store.SetValueRaw(addr, json.RawMessage(`1`)), entry(fmt.Sprintf("e%d", i), nil)})
		require.NoError(t, err)
	}
}

// TestInMemoryConcurrentCreatesKeepCommits: stores opened at once on one
// new path share one database; no Open's create erases a commit made
// through a store opened before it (a second copy of the template over the
// first would). One store commits: a Store assumes it is the only writer.
func TestInMemoryConcurrentCreatesKeepCommits(t *testing.T) {
	const n = 8
	for round := 0; round < 20; round++ {
		path := filepath.Join(t.TempDir(), "s.db")
		mem := sqlite.Options{Sync: sqlite.SyncNever, InMemory: true}
		stores := make(chan *sqlite.Store, n)
		errs := make(chan error, n)
		token := make(chan struct{}, 1)
		token <- struct{}{}
		for i := 0; i < n; i++ {
			go func() {
				s, err := sqlite.Open(path, envtest.NewTickClock(0), mem)
				if err == nil {
					stores <- s
					select {
					case <-token:
						_, err = s.Commit([]store.Write{usage("u")})
					default:
					}
				}
				errs <- err
			}()
		}
		for i := 0; i < n; i++ {
			require.NoError(t, <-errs)
		}
		check, err := sqlite.Open(path, envtest.NewTickClock(0), mem)
		require.NoError(t, err)
		all, err := check.Usage()
		require.NoError(t, err)
		assert.Len(t, all, 1, "round %d: the commit is in the shared database", round)
		require.NoError(t, check.Close())
		close(stores)
		for s := range stores {
			require.NoError(t, s.Close())
		}
	}
}

// A recycled store answers every read as a new one does and commits from
// seq 1 with its new clock, like a store Open created, after any commits
// (rejected ones included) and however often it is recycled.
func TestRecycleIsANewStore(t *testing.T) {
	dir := t.TempDir()
	n := 0
	for _, inMemory := range []bool{false, true} {
		rapid.Check(t, func(rt *rapid.T) {
			n++
			opts := sqlite.Options{Sync: sqlite.SyncNever, InMemory: inMemory}
			db, err := sqlite.Open(filepath.Join(dir, fmt.Sprintf("r%d.db", n)), envtest.NewTickClock(0), opts)
			require.NoError(rt, err)
			defer func() { _ = db.Close() }()
			for range rapid.IntRange(1, 3).Draw(rt, "recycles") {
				for range rapid.IntRange(0, 6).Draw(rt, "commits before") {
					_, _ = db.Commit(rapid.SliceOfN(rapid.Custom(genWrite), 0, 4).Draw(rt, "writes"))
				}
				start := rapid.Int64Range(0, 1e6).Draw(rt, "clock")
				require.NoError(rt, db.Recycle(envtest.NewTickClock(start)))
				fresh, err := sqlite.Open(filepath.Join(dir, fmt.Sprintf("f%d.db", n)), envtest.NewTickClock(start), opts)
				require.NoError(rt, err)
				diffReads(rt, fresh, db)
				for range rapid.IntRange(0, 6).Draw(rt, "commits after") {
					commitBoth(rt, fresh, db, rapid.SliceOfN(rapid.Custom(genWrite), 0, 4).Draw(rt, "writes"))
				}
				diffReads(rt, fresh, db)
				require.NoError(rt, fresh.Close())
				n++
			}
		})
	}
	closed, err := sqlite.Open(filepath.Join(dir, "closed.db"), envtest.NewTickClock(0), sqlite.Options{Sync: sqlite.SyncNever})
	require.NoError(t, err)
	require.NoError(t, closed.Close())
	require.ErrorIs(t, closed.Recycle(envtest.NewTickClock(0)), sqlite.ErrClosed)
}

// An empty key is an empty BLOB, not NULL, from a store's first statement
// on (the driver binds a nil []byte as NULL).
func TestEmptyKeyFirst(t *testing.T) {
	for _, inMemory := range []bool{false, true} {
		db, err := sqlite.Open(filepath.Join(t.TempDir(), "k.db"), envtest.NewTickClock(0), sqlite.Options{Sync: sqlite.SyncNever, InMemory: inMemory})
		require.NoError(t, err)
		addr := store.Address{Namespace: "a", Key: ""}
		got, err := db.GetValue(addr)
		require.NoError(t, err)
		require.Nil(t, got)
		_, err = db.Commit([]store.Write{store.SetValueRaw(addr, json.RawMessage(`1`)), store.AppendListRaw(addr, json.RawMessage(`2`))})
		require.NoError(t, err)
		got, err = db.GetValue(addr)
		require.NoError(t, err)
		require.NotNil(t, got)
		assert.JSONEq(t, `1`, string(got.Value))
		vals, err := db.ScanValues("a", "")
		require.NoError(t, err)
		assert.Len(t, vals, 1)
		els, err := db.ReadList(addr, store.ReadOptions{})
		require.NoError(t, err)
		assert.Len(t, els, 1)
		require.NoError(t, db.Close())
	}
}

// What a read returns is the caller's: later rows, reads and commits
// (which reuse the driver's row and argument slices and SQLite's pages)
// never change it.
func TestReadsDoNotAlias(t *testing.T) {
	db, err := sqlite.Open(filepath.Join(t.TempDir(), "a.db"), envtest.NewTickClock(0), sqlite.Options{Sync: sqlite.SyncNever, InMemory: true})
	require.NoError(t, err)
	defer func() { require.NoError(t, db.Close()) }()
	commitRound := func(round int) {
		var writes []store.Write
		for i := range 4 {
			addr := store.Address{Namespace: "a", Key: fmt.Sprintf("k%d", i)}
			v := json.RawMessage(fmt.Sprintf(`{"round":%d,"i":%d}`, round, i))
			writes = append(writes, store.SetValueRaw(addr, v), store.AppendListRaw(addr, v))
		}
		writes = append(writes, entry(fmt.Sprintf("e%d", round), nil), usage(fmt.Sprintf("u%d", round)))
		_, err := db.Commit(writes)
		require.NoError(t, err)
	}
	commitRound(0)
	read := func() any {
		vals, err := db.ScanValues("a", "")
		require.NoError(t, err)
		one, err := db.GetValue(store.Address{Namespace: "a", Key: "k0"})
		require.NoError(t, err)
		els, err := db.ReadList(store.Address{Namespace: "a", Key: "k1"}, store.ReadOptions{})
		require.NoError(t, err)
		ents, err := db.Entries()
		require.NoError(t, err)
		us, err := db.Usage()
		require.NoError(t, err)
		return []any{vals, one, els, ents, us}
	}
	first := read()
	saved, err := json.Marshal(first)
	require.NoError(t, err)
	for round := 1; round < 4; round++ {
		commitRound(round)
		read()
	}
	again, err := json.Marshal(first)
	require.NoError(t, err)
	require.JSONEq(t, string(saved), string(again))
}
