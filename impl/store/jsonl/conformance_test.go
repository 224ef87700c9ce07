package jsonl

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/frameproof/frameproof/impl/store"
	"github.com/frameproof/frameproof/impl/store/storetest"
)

func TestConformance(t *testing.T) {
	for name, opts := range map[string]Options{
		"sync-never":          {Sync: SyncNever},
		"sync-always+compact": {Sync: SyncAlways, CompactDeadRatio: 0.3},
	} {
		t.Run(name, func(t *testing.T) {
			fss := map[store.Storage]*memFS{}
			storetest.RunWithReopen(t,
				func(t *testing.T) store.Storage {
					m := newMemFS()
					s := newStore(t, m, opts)
					fss[s] = m
					return s
				},
				func(t *testing.T, s store.Storage) store.Storage {
					m := fss[s]
					require.NoError(t, s.Close())
					r, err := Open(testEnv(m), path, opts)
					require.NoError(t, err)
					fss[r] = m
					return r
				})
		})
	}
}
