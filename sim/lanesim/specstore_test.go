package lanesim

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/frameproof/frameproof/impl/env/envtest"
	"github.com/frameproof/frameproof/impl/lane"
	"github.com/frameproof/frameproof/impl/store"
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
	for _, ws := range [][]store.Write{
		{entry("a", nil), usage("u1")},
		{entry("b", &a), entry("a", nil)}, // rejected: a exists
		{entry("c", &a), usage("u2"), entry("d", nil)},
	} {
		_, _ = s.Commit(ws)
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
			_, _ = r.ref.Commit(ws)
		}
		require.Equal(t, countResults(r.ref), r.resultsCount(), "after commit %d", i)
		require.Equal(t, countResults(r.ref), r.resultsCount(), "after commit %d, again", i)
	}
	require.Equal(t, 3, r.resultsCount())
}
