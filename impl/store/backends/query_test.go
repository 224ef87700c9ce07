package backends_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/frameproof/frameproof/impl/env"
	"github.com/frameproof/frameproof/impl/store"
	"github.com/frameproof/frameproof/impl/store/backends"
)

// The query surface of pi's Storage (session/types.ts) on every backend,
// pinned to pi's InMemoryStorageState (session/in-memory-storage-state.ts),
// the one MemoryStorage and JsonlStorage serve their reads from.

func ptr[T any](v T) *T { return &v }

func entryWrite(id string, parent *string, body string) store.Write {
	p := "null"
	if parent != nil {
		p = fmt.Sprintf("%q", *parent)
	}
	return store.InsertEntry(store.Entry{ID: id, ParentID: parent,
		Raw: json.RawMessage(fmt.Sprintf(`{"id":%q,"parentId":%s,%s}`, id, p, body))})
}

func userW(id string, parent *string) store.Write {
	return entryWrite(id, parent, `"type":"message","message":{"role":"user","content":[],"timestamp":1}`)
}

func customW(id string, parent *string, ct string) store.Write {
	return entryWrite(id, parent, fmt.Sprintf(`"type":"custom","customType":%q`, ct))
}

func usageW(id string, in, out float64) store.Write {
	raw := fmt.Sprintf(`{"id":%q,"usage":{"input":%v,"output":%v,"cacheRead":0,"cacheWrite":0,"totalTokens":%v,"cost":{"input":%v,"output":%v,"cacheRead":0,"cacheWrite":0,"total":%v}},"adjustment":false}`,
		id, in, out, in+out, in/100, out/100, (in+out)/100)
	return store.InsertUsage(store.UsageRow{ID: id, Raw: json.RawMessage(raw)})
}

func ids(es store.EntryList) []string {
	out := []string{}
	for _, e := range es.All() {
		out = append(out, e.Entry.ID)
	}
	return out
}

// eachQueryBackend runs f on a fresh store of every backend, and on a
// durable one again after a reopen (the indexes rebuilt from the file).
func eachQueryBackend(t *testing.T, seed []store.Write, f func(t *testing.T, q store.QueryStorage, r store.CommitResult)) {
	for _, b := range backends.All() {
		t.Run(b.Name, func(t *testing.T) {
			dir := t.TempDir()
			st := create(t, b, dir)
			r, err := st.Commit(seed)
			require.NoError(t, err)
			f(t, st.(store.QueryStorage), r)
			if b.Durable {
				require.NoError(t, st.Close())
				st, err = b.Open(env.Production(), dir, backends.Options{Sync: backends.SyncNever})
				require.NoError(t, err)
				t.Run("reopened", func(t *testing.T) { f(t, st.(store.QueryStorage), r) })
			}
			require.NoError(t, st.Close())
		})
	}
}

func branchSeed() []store.Write {
	return []store.Write{
		userW("root", nil),
		customW("marker", ptr("root"), "marker"),
		userW("middle", ptr("marker")),
		entryWrite("compact", ptr("middle"), `"type":"compaction","summary":"s","retainedTail":[],"tokensBefore":10,"fromHook":false`),
		customW("note", ptr("compact"), "note"),
		userW("leaf", ptr("note")),
	}
}

// TestScanBranchIsPis: pi's scanBranch (in-memory-storage-state.ts) — stops
// before filters, cursors before limits, the order, and its errors; the
// case "applies stops before filters and cursors before limits" of pi's
// storage conformance.
func TestScanBranchIsPis(t *testing.T) {
	eachQueryBackend(t, branchSeed(), func(t *testing.T, q store.QueryStorage, r store.CommitResult) {
		scan := func(s store.BranchScan) []string {
			es, err := q.ScanBranch(s)
			require.NoError(t, err)
			return ids(es)
		}
		assert.Equal(t, []string{"leaf", "note", "compact", "middle", "marker", "root"}, scan(store.BranchScan{Start: "leaf"}))
		assert.Equal(t, []string{"leaf"}, scan(store.BranchScan{Start: "leaf", StopAtType: ptr("compaction"), Type: ptr("message")}))
		assert.Equal(t, []string{"marker"}, scan(store.BranchScan{Start: "leaf", Order: store.OldestFirst, StopAtID: ptr("middle"), Type: ptr("custom")}))
		assert.Equal(t, []string{"compact", "middle"}, scan(store.BranchScan{Start: "leaf", Cursor: ptr(r.Seqs[4]), Limit: ptr(int64(2))}))
		assert.Equal(t, []string{"middle", "compact"}, scan(store.BranchScan{Start: "leaf", Order: store.OldestFirst, Cursor: ptr(r.Seqs[1]), Limit: ptr(int64(2))}))
		assert.Equal(t, []string{}, scan(store.BranchScan{Start: "leaf", StopAtID: ptr("leaf"), Type: ptr("custom")}))
		assert.Equal(t, []string{"note"}, scan(store.BranchScan{Start: "leaf", CustomType: ptr("note")}))
		assert.Equal(t, []string{}, scan(store.BranchScan{Start: "leaf", Limit: ptr(int64(-3))}), "slice(0, max(0, limit))")
		_, err := q.ScanBranch(store.BranchScan{Start: "missing"})
		assert.EqualError(t, err, "Unknown branch start: missing")

		st, err := q.ScanBranchStructure(store.BranchScan{Start: "marker", Order: store.OldestFirst})
		require.NoError(t, err)
		b, err := json.Marshal(st.Slice())
		require.NoError(t, err)
		assert.Equal(t, fmt.Sprintf(`[{"id":"root","parentId":null,"seq":%d,"timestamp":%d,"type":"message"},`+
			`{"id":"marker","parentId":"root","seq":%d,"timestamp":%d,"type":"custom","customType":"marker"}]`,
			r.Seqs[0], r.Timestamp, r.Seqs[1], r.Timestamp), string(b))
	})
}

// TestScanBranchStopsAtAnEntryWithoutType: pi's scanBranch stops after an
// entry whose type is undefined when the query names no stopAtType
// (undefined === undefined), whether or not the scan filters; named, the
// stop type does not match it and the walk goes on to the root.
func TestScanBranchStopsAtAnEntryWithoutType(t *testing.T) {
	seed := []store.Write{userW("root", nil), entryWrite("bare", ptr("root"), `"note":"no type"`), userW("leaf", ptr("bare"))}
	eachQueryBackend(t, seed, func(t *testing.T, q store.QueryStorage, _ store.CommitResult) {
		scan := func(s store.BranchScan) []string {
			es, err := q.ScanBranch(s)
			require.NoError(t, err)
			return ids(es)
		}
		assert.Equal(t, []string{"leaf", "bare"}, scan(store.BranchScan{Start: "leaf"}))
		assert.Equal(t, []string{"leaf"}, scan(store.BranchScan{Start: "leaf", Limit: ptr(int64(1))}))
		assert.Equal(t, []string{"leaf"}, scan(store.BranchScan{Start: "leaf", Type: ptr("message")}))
		assert.Equal(t, []string{"leaf", "bare", "root"}, scan(store.BranchScan{Start: "leaf", StopAtType: ptr("custom")}))
		st, err := q.ScanBranchStructure(store.BranchScan{Start: "leaf"})
		require.NoError(t, err)
		assert.Equal(t, 2, st.Len())
		assert.Equal(t, store.EntryStructure{ID: "bare", ParentID: ptr("root"), Seq: st.At(1).Seq, Timestamp: st.At(1).Timestamp}, st.At(1))
	})
}

// TestGetEntriesIsPis: pi's getEntries — the ids found, each once, in the
// order asked, with seq and timestamp.
func TestGetEntriesIsPis(t *testing.T) {
	eachQueryBackend(t, branchSeed(), func(t *testing.T, q store.QueryStorage, r store.CommitResult) {
		es, err := q.GetEntries([]string{"note", "missing", "root", "note"})
		require.NoError(t, err)
		assert.Equal(t, []string{"note", "root"}, ids(es))
		assert.Equal(t, r.Seqs[4], es.At(0).Seq)
		assert.Equal(t, r.Timestamp, es.At(1).Timestamp)
		assert.Nil(t, es.At(1).Entry.ParentID)
		assert.Equal(t, "compact", *es.At(0).Entry.ParentID)
		none, err := q.GetEntries(nil)
		require.NoError(t, err)
		assert.Zero(t, none.Len())
	})
}

// TestScanEntriesIsPis: pi's scanEntries — inclusive seq bounds, type and
// customType filters, order, and a limit applied to matches.
func TestScanEntriesIsPis(t *testing.T) {
	seed := []store.Write{userW("root", nil), customW("note-1", ptr("root"), "note"), customW("other", ptr("note-1"), "other"),
		customW("note-2", ptr("other"), "note"), userW("tail", ptr("note-2"))}
	eachQueryBackend(t, seed, func(t *testing.T, q store.QueryStorage, r store.CommitResult) {
		scan := func(s store.EntryScan) []string {
			es, err := q.ScanEntries(s)
			require.NoError(t, err)
			return ids(es)
		}
		assert.Equal(t, []string{"note-2", "note-1"}, scan(store.EntryScan{Type: ptr("custom"), CustomType: ptr("note"), FromSeq: ptr(r.Seqs[1]), ToSeq: ptr(r.Seqs[3]), Order: store.Desc}))
		assert.Equal(t, []string{"root", "note-1"}, scan(store.EntryScan{Order: store.Asc, Limit: ptr(int64(2))}))
		assert.Equal(t, []string{"tail", "note-2"}, scan(store.EntryScan{Order: store.Desc, Limit: ptr(int64(2))}))
		assert.Equal(t, []string{"root", "tail"}, scan(store.EntryScan{Type: ptr("message")}))
		assert.Equal(t, []string{}, scan(store.EntryScan{Limit: ptr(int64(0))}))
		assert.Equal(t, []string{"note-2"}, scan(store.EntryScan{Type: ptr("custom"), Order: store.Desc, Limit: ptr(int64(1))}))
		// unfiltered pages within seq bounds, either way
		assert.Equal(t, []string{"note-1", "other", "note-2"}, scan(store.EntryScan{FromSeq: ptr(r.Seqs[1]), ToSeq: ptr(r.Seqs[3])}))
		assert.Equal(t, []string{"note-2", "other"}, scan(store.EntryScan{FromSeq: ptr(r.Seqs[1]), ToSeq: ptr(r.Seqs[3]), Order: store.Desc, Limit: ptr(int64(2))}))
		assert.Equal(t, []string{"other", "note-2", "tail"}, scan(store.EntryScan{FromSeq: ptr(r.Seqs[2]), Limit: ptr(int64(9))}))
		assert.Equal(t, []string{}, scan(store.EntryScan{FromSeq: ptr(r.Seqs[4] + 1)}))
	})
}

// TestScanUsageAndStatsArePis: pi's scanUsage and getStats (the message
// count and addUsage's totals, with the optional members once seen).
func TestScanUsageAndStatsArePis(t *testing.T) {
	seed := []store.Write{usageW("u1", 1, 1), userW("m", nil), usageW("u2", 2, 2), usageW("u3", 3, 3), customW("c", ptr("m"), "x")}
	eachQueryBackend(t, seed, func(t *testing.T, q store.QueryStorage, r store.CommitResult) {
		scan := func(s store.UsageScan) []string {
			rows, err := q.ScanUsage(s)
			require.NoError(t, err)
			out := []string{}
			for _, u := range rows {
				out = append(out, u.Row.ID)
			}
			return out
		}
		assert.Equal(t, []string{"u2"}, scan(store.UsageScan{FromSeq: ptr(r.Seqs[1]), ToSeq: ptr(r.Seqs[2])}))
		assert.Equal(t, []string{"u3", "u2"}, scan(store.UsageScan{Order: store.Desc, Limit: ptr(int64(2))}))
		assert.Equal(t, []string{"u1", "u2", "u3"}, scan(store.UsageScan{}))
		stats, err := q.GetStats()
		require.NoError(t, err)
		b, _ := json.Marshal(stats)
		assert.Equal(t, `{"messageCount":1,"usage":{"input":6,"output":6,"cacheRead":0,"cacheWrite":0,"totalTokens":12,"cost":{"input":0.06,"output":0.06,"cacheRead":0,"cacheWrite":0,"total":0.12}}}`, string(b))
	})
}

// TestReadListLimitZeroIsRefused: pi's resolveListReadOptions (values.ts)
// refuses {limit: 0}; a Go caller says it gave the limit with LimitSet.
func TestReadListLimitZeroIsRefused(t *testing.T) {
	eachQueryBackend(t, nil, func(t *testing.T, q store.QueryStorage, _ store.CommitResult) {
		addr := store.Address{Namespace: "l", Key: "k", Kind: store.KindList}
		_, err := q.ReadList(addr, store.ReadOptions{LimitSet: true})
		assert.EqualError(t, err, "List read limit must be a positive safe integer")
		els, err := q.ReadList(addr, store.ReadOptions{})
		require.NoError(t, err)
		assert.Empty(t, els)
	})
}

// TestQueriesRejectAfterClose: pi's MemoryStorage and JsonlStorage reject
// every read once closed.
func TestQueriesRejectAfterClose(t *testing.T) {
	for _, b := range backends.All() {
		st := create(t, b, t.TempDir())
		require.NoError(t, st.Close())
		q := st.(store.QueryStorage)
		_, err := q.GetStats()
		assert.Error(t, err, b.Name)
		_, err = q.GetEntries(nil)
		assert.Error(t, err, b.Name)
		_, err = q.ScanBranch(store.BranchScan{Start: "x"})
		assert.Error(t, err, b.Name)
		_, err = q.ScanEntries(store.EntryScan{})
		assert.Error(t, err, b.Name)
		_, err = q.ScanUsage(store.UsageScan{})
		assert.Error(t, err, b.Name)
	}
}

// TestGetEntriesDropsRepeatsInAnyOrder: repeats are dropped whether the
// ids come in commit order (no set is built) or not (one is).
func TestGetEntriesDropsRepeatsInAnyOrder(t *testing.T) {
	eachQueryBackend(t, branchSeed(), func(t *testing.T, q store.QueryStorage, _ store.CommitResult) {
		for _, c := range []struct{ ask, want []string }{
			{[]string{"root", "marker", "leaf"}, []string{"root", "marker", "leaf"}},
			{[]string{"root", "marker", "root", "leaf", "marker"}, []string{"root", "marker", "leaf"}},
			{[]string{"leaf", "leaf", "root", "missing", "leaf", "root"}, []string{"leaf", "root"}},
		} {
			es, err := q.GetEntries(c.ask)
			require.NoError(t, err)
			assert.Equal(t, c.want, ids(es), "%v", c.ask)
		}
	})
}

// TestQueryResultsCannotChangeTheStore: the queries return lists that
// read the store's entries in place, as pi returns its entry objects; At
// and Slice hand out copies, whose payload (Raw) and parent id share the
// store's memory (Querier says not to write through those). Overwriting
// every field of every copy leaves what the lists and the next queries
// return as it was.
func TestQueryResultsCannotChangeTheStore(t *testing.T) {
	eachQueryBackend(t, branchSeed(), func(t *testing.T, q store.QueryStorage, _ store.CommitResult) {
		read := func() ([]store.EntryList, store.StructureList) {
			got, err := q.GetEntries([]string{"leaf", "root", "note"})
			require.NoError(t, err)
			scanned, err := q.ScanEntries(store.EntryScan{Order: store.Desc, Limit: ptr(int64(3))})
			require.NoError(t, err)
			filtered, err := q.ScanEntries(store.EntryScan{Type: ptr("custom")})
			require.NoError(t, err)
			branch, err := q.ScanBranch(store.BranchScan{Start: "leaf"})
			require.NoError(t, err)
			structure, err := q.ScanBranchStructure(store.BranchScan{Start: "leaf", Order: store.OldestFirst})
			require.NoError(t, err)
			return []store.EntryList{got, scanned, filtered, branch}, structure
		}
		snap := func(ls []store.EntryList, st store.StructureList) string {
			all := []any{st.Slice()}
			for _, l := range ls {
				all = append(all, l.Slice())
			}
			b, err := json.Marshal(all)
			require.NoError(t, err)
			return string(b)
		}
		l0, st0 := read()
		want := snap(l0, st0)
		for _, l := range l0 {
			for i := range l.Len() {
				e := l.At(i)
				e.Entry.ID, e.Entry.ParentID, e.Seq, e.Timestamp = "changed", ptr("changed"), -1, -1
				e.Entry.Raw = []byte(`{}`)
			}
			es := l.Slice()
			for i := range es {
				es[i].Entry.ID, es[i].Seq = "changed", -1
			}
		}
		ss := st0.Slice()
		for i := range ss {
			ss[i] = store.EntryStructure{ID: "changed", Type: `"changed"`, Seq: -1}
		}
		assert.Equal(t, want, snap(l0, st0), "the lists read before")
		l1, st1 := read()
		assert.Equal(t, want, snap(l1, st1), "the queries read again")
	})
}

// TestQueryResultsOutliveCommits: a list names rows a store never writes
// again, so it reads the same entries after later commits (thousands, so
// that the store's rows grow new chunks past the list's); under -race,
// reading lists while another goroutine commits is what the store's lock
// does not cover.
func TestQueryResultsOutliveCommits(t *testing.T) {
	for _, b := range backends.All() {
		st := create(t, b, t.TempDir())
		defer func() { require.NoError(t, st.Close()) }()
		_, err := st.Commit(branchSeed())
		require.NoError(t, err)
		q := st.(store.QueryStorage)
		latest, err := q.ScanEntries(store.EntryScan{Order: store.Desc, Limit: ptr(int64(2))})
		require.NoError(t, err)
		branch, err := q.ScanBranchStructure(store.BranchScan{Start: "leaf"})
		require.NoError(t, err)
		got, err := q.GetEntries([]string{"note", "root"})
		require.NoError(t, err)
		want := []string{ids(latest)[0], ids(latest)[1], branch.At(0).ID, branch.At(5).ID, ids(got)[0], ids(got)[1]}
		assert.Equal(t, []string{"leaf", "note", "leaf", "root", "note", "root"}, want, b.Name)
		done := make(chan error, 1)
		go func() {
			parent := "leaf"
			var err error
			for i := 0; i < 3000 && err == nil; i++ {
				id := fmt.Sprintf("more-%d", i)
				_, err = q.Commit([]store.Write{userW(id, &parent)})
				parent = id
			}
			done <- err
		}()
		reads := func() []string {
			return []string{ids(latest)[0], ids(latest)[1], branch.At(0).ID, branch.At(5).ID, ids(got)[0], ids(got)[1]}
		}
		for range 50 {
			assert.Equal(t, want, reads(), b.Name)
		}
		require.NoError(t, <-done)
		assert.Equal(t, want, reads(), b.Name)
		again, err := q.ScanEntries(store.EntryScan{Order: store.Desc, Limit: ptr(int64(1))})
		require.NoError(t, err)
		assert.Equal(t, []string{"more-2999"}, ids(again), b.Name)
	}
}
