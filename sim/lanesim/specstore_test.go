package lanesim

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/frameproof/frameproof/impl/env/envtest"
	"github.com/frameproof/frameproof/impl/lane"
	"github.com/frameproof/frameproof/impl/store"
	mstore "github.com/frameproof/frameproof/model/store"
)

// The reference store's Entries and Usage, appended at each commit, are
// what its specification holds: every row it accepted, in seq order, with
// its bytes, parent and timestamp, and none of a rejected commit.
func TestSpecStoreRowsAreTheSpecifications(t *testing.T) {
	s := newSpecStore(envtest.NewTickClock(0))
	entry := func(id string, parent *string) store.Write {
		return store.InsertEntry(store.Entry{ID: id, ParentID: parent, Raw: json.RawMessage(fmt.Sprintf(`{"id":%q}`, id))})
	}
	usage := func(id string) store.Write {
		return store.InsertUsage(store.UsageRow{ID: id, Raw: json.RawMessage(fmt.Sprintf(`{"id":%q}`, id))})
	}
	a := "a"
	for i, ws := range [][]store.Write{
		{entry("a", nil), usage("u1")},
		{entry("b", &a), entry("a", nil)}, // rejected: a exists
		{entry("c", &a), usage("u2"), entry("d", nil)},
	} {
		_, err := s.Commit(ws)
		require.Equal(t, i == 1, err != nil, "commit %d: %v", i, err)
	}
	es, err := s.Entries()
	require.NoError(t, err)
	us, err := s.Usage()
	require.NoError(t, err)
	var wantE []store.StoredEntry
	for _, r := range s.spec.Entries() {
		wantE = append(wantE, store.StoredEntry{Entry: store.Entry{ID: r.ID, ParentID: r.ParentID, Raw: s.raw[r.ID]}, Seq: r.Seq, Timestamp: r.Timestamp})
	}
	var wantU []store.StoredUsage
	for _, r := range s.spec.Usage() {
		wantU = append(wantU, store.StoredUsage{Row: store.UsageRow{ID: r.ID, Raw: s.raw[r.ID]}, Seq: r.Seq})
	}
	require.Equal(t, wantE, es)
	require.Equal(t, wantU, us)
	require.Len(t, es, 3)
	require.Len(t, us, 2)

	// the end-of-run check agrees, and refuses served rows that drifted
	require.NoError(t, s.rowsAreSpec())
	s.entries[1].Seq++
	require.ErrorContains(t, s.rowsAreSpec(), "entry 1")
	s.entries[1].Seq--
	s.usage = s.usage[:1]
	require.ErrorContains(t, s.rowsAreSpec(), "usage rows")
}

// resultsCount, read once per reference seq, is the reference's number of
// results after every commit: results set, overwritten and deleted, an
// empty commit and a rejected one (which change nothing).
func TestResultsCountFollowsTheReference(t *testing.T) {
	r := bareRunner()
	r.ref = newSpecStore(envtest.NewTickClock(0))
	set := func(op string) store.Write {
		return store.SetValueRaw(lane.ResultAddr(op), json.RawMessage(`{"op":"`+op+`"}`))
	}
	entry := store.InsertEntry(store.Entry{ID: "e", Raw: json.RawMessage(`{}`)})
	for i, ws := range [][]store.Write{
		nil,
		{set("a")},
		{set("b"), set("a")},
		{},
		{entry},
		{entry, set("c")}, // rejected: e exists
		{store.DeleteValueRaw(lane.ResultAddr("a"))},
		{set("d"), set("e")},
	} {
		if ws != nil {
			_, err := r.ref.Commit(ws)
			require.Equal(t, i == 5, err != nil, "commit %d: %v", i, err)
		}
		require.Equal(t, countResults(r.ref), r.resultsCount(), "after commit %d", i)
		require.Equal(t, countResults(r.ref), r.resultsCount(), "after commit %d, again", i)
	}
	require.Equal(t, 3, r.resultsCount())
}

// The bytes the reference store serves for a value or list element are the
// ones written at its seq: its specification's string of them, through
// random commits (sets, deletes, appends, rows between them, rejected
// commits).
func TestSpecStoreServesTheWrittenBytes(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := newSpecStore(envtest.NewTickClock(0))
		keys := []string{"a", "b", "c"}
		for i, n := 0, rapid.IntRange(1, 30).Draw(t, "commits"); i < n; i++ {
			var ws []store.Write
			for j, m := 0, rapid.IntRange(0, 4).Draw(t, "writes"); j < m; j++ {
				k := rapid.SampledFrom(keys).Draw(t, "key")
				body := json.RawMessage(fmt.Sprintf(`{"v":%d}`, rapid.IntRange(0, 9).Draw(t, "v")))
				switch rapid.IntRange(0, 4).Draw(t, "kind") {
				case 0:
					ws = append(ws, store.SetValueRaw(store.Address{Namespace: "ns", Key: k, Kind: store.KindValue}, body))
				case 1:
					ws = append(ws, store.DeleteValueRaw(store.Address{Namespace: "ns", Key: k, Kind: store.KindValue}))
				case 2:
					ws = append(ws, store.AppendListRaw(store.Address{Namespace: "ls", Key: k, Kind: store.KindList}, body))
				case 3:
					ws = append(ws, store.DeleteListRaw(store.Address{Namespace: "ls", Key: k, Kind: store.KindList}))
				default:
					ws = append(ws, store.InsertEntry(store.Entry{ID: k, Raw: body})) // rejected again
				}
			}
			_, _ = s.Commit(ws)
			// every read after every commit, kept or not, is the value
			// the specification holds, as a StoredValue of its own
			for _, v := range s.spec.ScanValues("ns", "") {
				got, err := s.GetValue(store.Address{Namespace: "ns", Key: v.Key, Kind: store.KindList})
				want := &store.StoredValue{Address: store.Address{Namespace: "ns", Key: v.Key, Kind: store.KindValue}, Value: json.RawMessage(v.Value), Seq: v.Seq}
				if err != nil || !reflect.DeepEqual(got, want) {
					t.Fatalf("commit %d, value %s: served %+v, specification %+v", i, v.Key, got, want)
				}
			}
		}
		vs, err := s.ScanValues("ns", "")
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range s.spec.ScanValues("ns", "") {
			got, _ := s.GetValue(store.Address{Namespace: "ns", Key: v.Key})
			if got == nil || string(got.Value) != v.Value || got.Seq != v.Seq {
				t.Fatalf("value %s: served %+v, specification %+v", v.Key, got, v)
			}
		}
		for _, v := range vs {
			if w, _ := s.spec.GetValue(mstore.Addr{Namespace: "ns", Key: v.Address.Key}); string(v.Value) != w.Value {
				t.Fatalf("scanned value %s: %s, specification %s", v.Address.Key, v.Value, w.Value)
			}
		}
		for _, k := range keys {
			els, err := s.ReadList(store.Address{Namespace: "ls", Key: k, Kind: store.KindList}, store.ReadOptions{Limit: 10_000})
			if err != nil {
				t.Fatal(err)
			}
			want, _ := s.spec.ReadList(mstore.Addr{Namespace: "ls", Key: k}, nil, false, 10_000)
			if len(els) != len(want) {
				t.Fatalf("list %s: %d elements, specification %d", k, len(els), len(want))
			}
			for i := range els {
				if string(els[i].Value) != want[i].Value || els[i].Seq != want[i].Seq {
					t.Fatalf("list %s element %d: %s@%d, specification %s@%d", k, i, els[i].Value, els[i].Seq, want[i].Value, want[i].Seq)
				}
			}
		}
	})
}
