package serve

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/frameproof/frameproof/impl/store"
)

// AppendWrite and DecodeWrite are one form: every kind of write survives
// the round trip.
func TestAppendWriteDecodesBack(t *testing.T) {
	parent := "e0"
	for _, w := range []store.Write{
		store.InsertEntry(store.Entry{ID: "e1", ParentID: &parent, Raw: json.RawMessage(`{"id":"e1","parentId":"e0","type":"message"}`)}),
		store.InsertUsage(store.UsageRow{ID: "u1", Raw: json.RawMessage(`{"id":"u1","entryId":"e1"}`)}),
		store.SetValueRaw(store.Address{Namespace: "pi.branch.tip", Key: "main", Kind: store.KindValue}, json.RawMessage(`"e1"`)),
	} {
		got, err := DecodeWrite(AppendWrite(nil, w))
		require.NoError(t, err)
		require.Equal(t, string(AppendWrite(nil, w)), string(AppendWrite(nil, got)))
		require.Equal(t, w.Kind, got.Kind)
	}
}
