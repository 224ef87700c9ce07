package backends_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/frameproof/frameproof/impl/store"
)

// bigTree is a tree of n entries whose parents are drawn at random: mostly
// the entry before (a branch growing), sometimes any earlier entry (a fork,
// whose parent lies in another of the store's row chunks), and every
// fiftieth an entry without a type, which stops an unfiltered walk. It
// returns the writes and each entry's parent index (-1 for the root).
func bigTree(n int, seed uint64) ([]store.Write, []int) {
	rng := rand.New(rand.NewPCG(seed, 7))
	ws := make([]store.Write, n)
	parents := make([]int, n)
	for i := range n {
		id := fmt.Sprintf("tree-%d", i)
		parents[i] = -1
		var parent *string
		if i > 0 {
			parents[i] = i - 1
			if rng.IntN(8) == 0 {
				parents[i] = rng.IntN(i)
			}
			parent = ptr(fmt.Sprintf("tree-%d", parents[i]))
		}
		body := `"type":"message","message":{"role":"user","content":[],"timestamp":1}`
		if i%50 == 49 {
			body = `"note":"no type"`
		}
		ws[i] = entryWrite(id, parent, body)
	}
	return ws, parents
}

// TestBigTreeQueriesAreAReferenceWalk: on a tree of thousands of entries
// (past a row chunk of 1024 several times, with parents in other chunks),
// unfiltered branch scans and their structures, with and without a limit
// and in both orders, are the walk from the start up its parents to the
// root, ordered, up to the first entry without a type; getEntries of random ids,
// with repeats and missing ones, is their first occurrences; and a page
// of the latest entries is the last entries in reverse.
func TestBigTreeQueriesAreAReferenceWalk(t *testing.T) {
	const n = 3500
	seed, parents := bigTree(n, 1)
	id := func(i int) string { return fmt.Sprintf("tree-%d", i) }
	// walk is pi's scanBranch without filters: the path to the root, in
	// the scan's order, up to and with the first entry without a type,
	// then the limit.
	walk := func(start int, limit int64, oldest bool) []string {
		var path []int
		for i := start; i >= 0; i = parents[i] {
			path = append(path, i)
		}
		if oldest {
			slices.Reverse(path)
		}
		out := []string{}
		for _, i := range path {
			if limit >= 0 && int64(len(out)) == limit {
				break
			}
			out = append(out, id(i))
			if i%50 == 49 {
				break
			}
		}
		return out
	}
	eachQueryBackend(t, seed, func(t *testing.T, q store.QueryStorage, _ store.CommitResult) {
		rng := rand.New(rand.NewPCG(2, 3))
		for range 60 {
			start := rng.IntN(n)
			limit := int64(-1)
			if rng.IntN(2) == 0 {
				limit = int64(rng.IntN(80))
			}
			oldest := rng.IntN(3) == 0
			s := store.BranchScan{Start: id(start), Order: store.NewestFirst}
			if oldest {
				s.Order = store.OldestFirst
			}
			if limit >= 0 {
				s.Limit = ptr(limit)
			}
			want := walk(start, limit, oldest)
			es, err := q.ScanBranch(s)
			require.NoError(t, err)
			assert.Equal(t, want, ids(es), "scanBranch %+v", s)
			st, err := q.ScanBranchStructure(s)
			require.NoError(t, err)
			got := []string{}
			for _, e := range st.All() {
				got = append(got, e.ID)
			}
			assert.Equal(t, want, got, "scanBranchStructure %+v", s)
		}
		for range 40 {
			var is []int
			for range rng.IntN(300) {
				if len(is) > 0 && rng.IntN(10) == 0 {
					is = append(is, is[rng.IntN(len(is))]) // a repeat
					continue
				}
				is = append(is, rng.IntN(n+n/10)) // a tenth missing
			}
			if rng.IntN(2) == 0 {
				slices.Sort(is) // commit order, as a transcript asks
			}
			ask, want := []string{}, []string{}
			for _, i := range is {
				ask = append(ask, id(i))
				if i < n && !slices.Contains(want, id(i)) {
					want = append(want, id(i))
				}
			}
			es, err := q.GetEntries(slices.Clone(ask))
			require.NoError(t, err)
			assert.Equal(t, want, ids(es), "getEntries %q", ask)
		}
		for _, limit := range []int64{0, 1, 50, 1025, n + 1} {
			es, err := q.ScanEntries(store.EntryScan{Order: store.Desc, Limit: ptr(limit)})
			require.NoError(t, err)
			want := []string{}
			for i := n - 1; i >= 0 && int64(len(want)) < limit; i-- {
				want = append(want, id(i))
			}
			assert.Equal(t, want, ids(es), "latest %d", limit)
		}
	})
}
