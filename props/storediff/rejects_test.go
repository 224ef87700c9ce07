package storediff

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/frameproof/frameproof/impl/store"
	mstore "github.com/frameproof/frameproof/model/store"
)

// Every backend refuses a commit holding a value or list write at an
// address model/store refuses (pi's value()/list(): empty namespace, NUL in
// namespace or key), and a row whose raw is not one JSON object with unique
// keys; the store stays as it was.
func TestBackendsRefuseBadAddressesAndRows(t *testing.T) {
	bad := []store.Address{{Namespace: ""}, {Namespace: "a\x00"}, {Namespace: "a", Key: "k\x00"}}
	rows := []string{`[]`, `"u1"`, `{"id":"u1","id":"u1"}`}
	for _, name := range []string{"memory", "jsonl", "sqlite"} {
		t.Run(name, func(t *testing.T) {
			s := backends[name](t)
			for _, a := range bad {
				merr := mstore.ValidateAddr(mstore.Addr{Namespace: a.Namespace, Key: a.Key})
				require.Error(t, merr, "model accepts %q", a)
				for _, w := range []store.Write{store.SetValueRaw(a, []byte(`1`)), store.AppendListRaw(a, []byte(`1`))} {
					_, err := s.Commit([]store.Write{store.SetValueRaw(store.Address{Namespace: "ok"}, []byte(`1`)), w})
					require.ErrorContains(t, err, merr.Error(), "%s %s at %q", w.Kind, w.Op, a)
				}
			}
			for _, raw := range rows {
				_, err := s.Commit([]store.Write{store.InsertUsage(store.UsageRow{ID: "u1", Raw: []byte(raw)})})
				require.Error(t, err, "usage row %s", raw)
				_, err = s.Commit([]store.Write{store.InsertEntry(store.Entry{ID: "u1", Raw: []byte(raw)})})
				require.Error(t, err, "entry %s", raw)
			}
			require.EqualValues(t, 1, s.NextSeq(), "a refused commit used a seq")
			v, err := s.GetValue(store.Address{Namespace: "ok", Kind: store.KindValue})
			require.NoError(t, err)
			require.Nil(t, v, "a refused commit's valid write landed")
		})
	}
}
