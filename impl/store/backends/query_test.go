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

func ids(es []store.StoredEntry) []string {
	out := []string{}
	for _, e := range es {
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
		b, err := json.Marshal(st)
		require.NoError(t, err)
		assert.Equal(t, fmt.Sprintf(`[{"id":"root","parentId":null,"seq":%d,"timestamp":%d,"type":"message"},`+
			`{"id":"marker","parentId":"root","seq":%d,"timestamp":%d,"type":"custom","customType":"marker"}]`,
			r.Seqs[0], r.Timestamp, r.Seqs[1], r.Timestamp), string(b))
	})
}

// TestGetEntriesIsPis: pi's getEntries — the ids found, each once, in the
// order asked, with seq and timestamp.
func TestGetEntriesIsPis(t *testing.T) {
	eachQueryBackend(t, branchSeed(), func(t *testing.T, q store.QueryStorage, r store.CommitResult) {
		es, err := q.GetEntries([]string{"note", "missing", "root", "note"})
		require.NoError(t, err)
		assert.Equal(t, []string{"note", "root"}, ids(es))
		assert.Equal(t, r.Seqs[4], es[0].Seq)
		assert.Equal(t, r.Timestamp, es[1].Timestamp)
		assert.Nil(t, es[1].Entry.ParentID)
		assert.Equal(t, "compact", *es[0].Entry.ParentID)
		none, err := q.GetEntries(nil)
		require.NoError(t, err)
		assert.Empty(t, none)
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

// TestQueryResultsCannotChangeTheStore: the queries return entries whose
// payload (Raw) and parent id share the store's memory, as pi returns its
// entry objects (Querier says not to mutate those); everything else is
// the caller's. Overwriting every returned row and field leaves what the
// next query returns as it was.
func TestQueryResultsCannotChangeTheStore(t *testing.T) {
	eachQueryBackend(t, branchSeed(), func(t *testing.T, q store.QueryStorage, _ store.CommitResult) {
		read := func() ([]store.StoredEntry, []store.StoredEntry, []store.StoredEntry, []store.EntryStructure) {
			got, err := q.GetEntries([]string{"leaf", "root", "note"})
			require.NoError(t, err)
			scanned, err := q.ScanEntries(store.EntryScan{Order: store.Desc, Limit: ptr(int64(3))})
			require.NoError(t, err)
			branch, err := q.ScanBranch(store.BranchScan{Start: "leaf"})
			require.NoError(t, err)
			structure, err := q.ScanBranchStructure(store.BranchScan{Start: "leaf", Order: store.OldestFirst})
			require.NoError(t, err)
			return got, scanned, branch, structure
		}
		g0, s0, b0, st0 := read()
		// deep copies of what the first reads returned
		snap := func(v any) string { b, err := json.Marshal(v); require.NoError(t, err); return string(b) }
		want := snap([]any{g0, s0, b0, st0})
		for _, es := range [][]store.StoredEntry{g0, s0, b0} {
			for i := range es {
				es[i].Entry.ID, es[i].Entry.ParentID, es[i].Seq, es[i].Timestamp = "changed", ptr("changed"), -1, -1
				es[i].Entry.Raw = []byte(`{}`)
			}
			if len(es) > 1 {
				es[0], es[1] = es[1], es[0]
			}
		}
		for i := range st0 {
			st0[i] = store.EntryStructure{ID: "changed", Type: `"changed"`, Seq: -1}
		}
		g1, s1, b1, st1 := read()
		assert.Equal(t, want, snap([]any{g1, s1, b1, st1}))
	})
}
