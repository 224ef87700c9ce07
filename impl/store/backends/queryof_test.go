package backends_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/frameproof/frameproof/impl/store"
)

// storageOnly hides a store's queries, as the Storage wrappers of the
// fault layers and the tests do.
type storageOnly struct{ store.Storage }

// TestQueriesOfAWrapperAreTheStores: GetEntriesOf and ScanBranchOf on a
// Storage without the queries (read from every entry) return what the
// store's own queries return, errors included.
func TestQueriesOfAWrapperAreTheStores(t *testing.T) {
	seed := append(branchSeed(), entryWrite("bare", ptr("leaf"), `"note":"no type"`), userW("tip", ptr("bare")),
		userW("other", ptr("middle")))
	eachQueryBackend(t, seed, func(t *testing.T, q store.QueryStorage, r store.CommitResult) {
		wrapped := storageOnly{q}
		for _, ask := range [][]string{nil, {"leaf", "root", "leaf", "missing", "compact"}, {"other", "tip", "other"}} {
			a, errA := store.GetEntriesOf(q, ask)
			b, errB := store.GetEntriesOf(wrapped, ask)
			require.NoError(t, errA)
			require.NoError(t, errB)
			assert.Equal(t, a.Slice(), b.Slice(), "%v", ask)
		}
		for _, s := range []store.BranchScan{
			{Start: "tip"}, {Start: "leaf"}, {Start: "other", Order: store.OldestFirst},
			{Start: "tip", StopAtType: ptr("compaction")}, {Start: "tip", StopAtType: ptr("compaction"), Order: store.OldestFirst},
			{Start: "leaf", Type: ptr("custom"), Limit: ptr(int64(1))}, {Start: "leaf", Cursor: ptr(r.Seqs[3]), Order: store.OldestFirst},
			{Start: "leaf", StopAtID: ptr("marker"), CustomType: ptr("note")}, {Start: "missing"},
		} {
			a, errA := store.ScanBranchOf(q, s)
			b, errB := store.ScanBranchOf(wrapped, s)
			assert.Equal(t, errA, errB, "%+v", s)
			assert.Equal(t, a.Slice(), b.Slice(), "%+v", s)
		}
	})
}
