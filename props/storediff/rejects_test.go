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

// session/in-memory-storage-state.ts applyValidated → utils/usage.ts addUsage
// throws pi's TypeError for a usage row without usage or usage.cost (after
// JsonlStorage.commit appended the line, leaving a file its open refuses);
// every backend refuses that commit with the same message before writing
// anything, and the store still opens.
func TestBackendsRefuseAUsageRowPiCannotFold(t *testing.T) {
	rows := map[string]string{
		`{"id":"u1","adjustment":false}`:              store.ErrUsageUndefined.Error(),
		`{"id":"u1","usage":null}`:                    store.ErrUsageNull.Error(),
		`{"id":"u1","usage":7}`:                       store.ErrUsageUndefined.Error(),
		`{"id":"u1","usage":{"input":1}}`:             store.ErrUsageUndefined.Error(),
		`{"id":"u1","usage":{"input":1,"cost":null}}`: store.ErrUsageNull.Error(),
	}
	for _, name := range []string{"memory", "jsonl", "sqlite"} {
		t.Run(name, func(t *testing.T) {
			s := backends[name](t)
			ok := store.SetValueRaw(store.Address{Namespace: "ok"}, []byte(`1`))
			for raw, want := range rows {
				_, err := s.Commit([]store.Write{ok, store.InsertUsage(store.UsageRow{ID: "u1", Raw: []byte(raw)})})
				require.EqualError(t, err, want, "usage row %s", raw)
			}
			require.EqualValues(t, 1, s.NextSeq(), "a refused commit used a seq")
			_, err := s.Commit([]store.Write{ok, store.InsertUsage(store.UsageRow{ID: "u1", Raw: []byte(`{"id":"u1","usage":{"cost":{}}}`)})})
			require.NoError(t, err, "a row addUsage folds (to NaN) commits")
			us, err := s.Usage()
			require.NoError(t, err)
			require.Len(t, us, 1)
		})
	}
}
