package backends_test

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/frameproof/frameproof/impl/store"
)

// TestGetEntriesFindsEveryID: getEntries finds ids of any text (quotes,
// backslashes, astral characters, NUL, U+FFFD), repeated and in any
// order, and no entry for an id that is not valid UTF-8, which a JSON
// array of ids would have turned into the U+FFFD of another.
func TestGetEntriesFindsEveryID(t *testing.T) {
	odd := []string{`q"uo\te`, "astral \U0001F600", "nul\x00byte", "replaced \uFFFD byte", "<&>"}
	var seed []store.Write
	for _, id := range odd {
		raw, err := json.Marshal(map[string]any{"id": id, "parentId": nil, "type": "custom", "customType": "x"})
		require.NoError(t, err)
		seed = append(seed, store.InsertEntry(store.Entry{ID: id, Raw: raw}))
	}
	eachQueryBackend(t, seed, func(t *testing.T, q store.QueryStorage, _ store.CommitResult) {
		for _, ask := range [][]string{odd, {odd[1], "missing", odd[0], odd[1]}, {odd[2]}, {odd[4], odd[3], odd[2], odd[3]},
			{"replaced \xff byte", odd[0]}} {
			es, err := q.GetEntries(ask)
			require.NoError(t, err)
			want := []string{}
			for _, id := range ask {
				if slices.Contains(odd, id) && !slices.Contains(want, id) {
					want = append(want, id)
				}
			}
			assert.Equal(t, want, ids(es), "%q", ask)
		}
	})
}
