package store_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/frameproof/frameproof/impl/store"
)

// TestPrepareKindsAreKindOf: the kinds PrepareKinds reads while it
// validates a row are KindOf of the row it stores, on the one-pass path
// (compact, plain keys) and off it (space, escaped or non-ASCII keys).
func TestPrepareKindsAreKindOf(t *testing.T) {
	rows := []string{
		`{"id":"e","parentId":null,"type":"message","message":{"type":"nested"}}`,
		`{"id":"e","parentId":null,"type":"custom","customType":"note"}`,
		`{"id":"e","parentId":null}`,
		`{"id":"e","parentId":null,"type":7,"customType":{"a":[1,"x"]}}`,
		`{"id":"e","parentId":null,"type":"\u00e9t\u00e9","customType":"a\"b"}`,
		`{ "id": "e", "parentId": null, "type": "compaction" }`,
		`{"id":"e","parentId":null,"typ\u0065":"escaped key"}`,
		`{"id":"e","parentId":null,"t\u00ffpe":"custom","customType":"x"}`,
		`{"id":"e","parentId":null,"type":"message","customType":null}`,
	}
	for _, raw := range rows {
		w := store.InsertEntry(store.Entry{ID: "e", Raw: json.RawMessage(raw)})
		ws, kinds, err := store.PrepareKinds([]store.Write{w, store.SetValueRaw(store.Address{Namespace: "n", Key: "k", Kind: store.KindValue}, json.RawMessage(`1`))}, 1, 0)
		require.NoError(t, err, raw)
		assert.Equal(t, store.KindOf(ws[0].Entry.Raw), kinds[0], raw)
		assert.Equal(t, store.EntryKind{}, kinds[1], "a value has no kind")
	}
}
