package backends_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/frameproof/frameproof/impl/env"
	"github.com/frameproof/frameproof/impl/store"
	"github.com/frameproof/frameproof/impl/store/backends"
)

// A row or value committed through the Go API as bytes that are not UTF-8
// (pi cannot send them: JSON.stringify writes UTF-8) reads the same live,
// after a reopen and on every backend: as node reads the JSONL file that
// holds it (store.NodeText; pi: NodeExecutionEnv.readTextFile in
// JsonlStorage.open). The rows used to be kept as sent until the JSONL
// store was reopened, and kept so by SQLite for good.
func TestNonUTF8CommitsReadAsAReopenReadsThem(t *testing.T) {
	entryRaw := "{\"id\":\"a\",\"parentId\":null,\"type\":\"custom\",\"customType\":\"x\",\"data\":\"b\xff\xed\xa0\x80c\xe2\x82\"}"
	valueRaw := "\"v\xffw\""
	usageRaw := "{\"id\":\"u\",\"entryId\":\"a\",\"note\":\"\xc0\",\"usage\":{\"input\":1,\"output\":0,\"cacheRead\":0,\"cacheWrite\":0,\"totalTokens\":1,\"cost\":{\"input\":0,\"output\":0,\"cacheRead\":0,\"cacheWrite\":0,\"total\":0}}}"
	wantEntry := store.NodeText([]byte(entryRaw))
	wantValue := store.NodeText([]byte(valueRaw))
	wantUsage := store.NodeText([]byte(usageRaw))
	require.NotEqual(t, entryRaw, wantEntry)
	addr := store.Address{Namespace: "n", Key: "k", Kind: store.KindValue}
	check := func(t *testing.T, st store.Storage) {
		es, err := st.Entries()
		require.NoError(t, err)
		require.Len(t, es, 1)
		require.Equal(t, wantEntry, string(es[0].Entry.Raw))
		v, err := st.GetValue(addr)
		require.NoError(t, err)
		require.Equal(t, wantValue, string(v.Value))
		us, err := st.Usage()
		require.NoError(t, err)
		require.Len(t, us, 1)
		require.Equal(t, wantUsage, string(us[0].Row.Raw))
	}
	for _, b := range backends.All() {
		t.Run(b.Name, func(t *testing.T) {
			dir := t.TempDir()
			st, err := b.Create(env.Production(), dir, backends.Options{Sync: backends.SyncNever})
			require.NoError(t, err)
			_, err = st.Commit([]store.Write{
				store.InsertEntry(store.Entry{ID: "a", Raw: json.RawMessage(entryRaw)}),
				store.SetValueRaw(addr, json.RawMessage(valueRaw)),
				store.InsertUsage(store.UsageRow{ID: "u", Raw: json.RawMessage(usageRaw)}),
			})
			require.NoError(t, err)
			check(t, st)
			require.NoError(t, st.Close())
			if b.Durable {
				again, err := b.Open(env.Production(), dir, backends.Options{Sync: backends.SyncNever})
				require.NoError(t, err)
				check(t, again)
				require.NoError(t, again.Close())
			}
		})
	}
}
