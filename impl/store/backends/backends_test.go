package backends_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/frameproof/frameproof/impl/env"
	"github.com/frameproof/frameproof/impl/store"
	"github.com/frameproof/frameproof/impl/store/backends"
	"github.com/frameproof/frameproof/impl/store/storetest"
)

// TestTableIsWellFormed: consumers choose behaviour from the capabilities,
// so contradictory ones would send a backend down the wrong path.
func TestTableIsWellFormed(t *testing.T) {
	seen := map[string]bool{}
	for _, b := range backends.All() {
		require.NotEmpty(t, b.Name)
		assert.False(t, seen[b.Name], "duplicate backend %q", b.Name)
		seen[b.Name] = true
		assert.NotNil(t, b.Create, b.Name)
		assert.Equal(t, b.Durable, b.Open != nil, "%s: a durable backend reopens, a memory one does not", b.Name)
		assert.Equal(t, b.Durable, b.File != "", "%s: a durable backend names its file", b.Name)
		if b.EnvFS {
			assert.True(t, b.Durable, "%s: file I/O through env.FS implies files", b.Name)
		}
		got, err := backends.ByName(b.Name)
		require.NoError(t, err)
		assert.Equal(t, b.Name, got.Name)
	}
	assert.Equal(t, len(backends.All()), len(backends.Names()))
	_, err := backends.ByName("nope")
	assert.ErrorContains(t, err, `unknown backend "nope" (known: `+strings.Join(backends.Names(), ", ")+")")
}

func create(t *testing.T, b backends.Backend, dir string) store.Storage {
	st, err := b.Create(env.Production(), dir, backends.Options{Sync: backends.SyncNever})
	require.NoError(t, err, b.Name)
	return st
}

// TestEveryBackendKeepsACommit: a commit reads back, and a durable backend
// still holds it after a reopen.
func TestEveryBackendKeepsACommit(t *testing.T) {
	addr := store.Address{Namespace: "a", Key: "k", Kind: store.KindValue}
	for _, b := range backends.All() {
		t.Run(b.Name, func(t *testing.T) {
			dir := t.TempDir()
			st := create(t, b, dir)
			_, err := st.Commit([]store.Write{store.SetValueRaw(addr, json.RawMessage(`{"x":1}`))})
			require.NoError(t, err)
			if b.Durable {
				require.NoError(t, st.Close())
				st, err = b.Open(env.Production(), dir, backends.Options{Sync: backends.SyncNever})
				require.NoError(t, err)
			}
			v, err := st.GetValue(addr)
			require.NoError(t, err)
			require.NotNil(t, v, "%s lost the commit", b.Name)
			assert.JSONEq(t, `{"x":1}`, string(v.Value))
			require.NoError(t, st.Close())
		})
	}
}

// TestEveryBackendConforms runs the shared conformance suite on every row,
// so a new backend is checked the moment it is registered.
func TestEveryBackendConforms(t *testing.T) {
	for _, b := range backends.All() {
		t.Run(b.Name, func(t *testing.T) {
			dirs := map[store.Storage]string{}
			open := func(t *testing.T) store.Storage {
				dir := t.TempDir()
				st := create(t, b, dir)
				dirs[st] = dir
				return st
			}
			var reopen storetest.Reopen
			if b.Durable {
				reopen = func(t *testing.T, st store.Storage) store.Storage {
					require.NoError(t, st.Close())
					again, err := b.Open(env.Production(), dirs[st], backends.Options{Sync: backends.SyncNever})
					require.NoError(t, err)
					dirs[again] = dirs[st]
					return again
				}
			}
			storetest.RunWithReopen(t, open, reopen)
		})
	}
}

// TestEveryBackendCommitsATx: every backend commits a prepared store.Tx
// itself (pi-storage's write figures and store.CommitTx rely on it), the
// same Tx to several stores, each getting the rows and its own seqs; and a
// Tx is checked against a store as Commit checks writes: again into the
// same store, its ids are pi's duplicates, and nothing is applied; into a
// closed store, the store's closed error.
func TestEveryBackendCommitsATx(t *testing.T) {
	id, tip := "e1", store.Address{Namespace: "pi.branch.tip", Key: "main", Kind: store.KindValue}
	tx, err := store.NewTx([]store.Write{
		store.InsertEntry(store.Entry{ID: id, Raw: json.RawMessage(`{"id":"e1","parentId":null,"type":"message","message":{"role":"user","content":"hi","timestamp":1}}`)}),
		store.SetValueRaw(tip, json.RawMessage(`"e1"`)),
	})
	require.NoError(t, err)
	for _, b := range backends.All() {
		t.Run(b.Name, func(t *testing.T) {
			first, second := create(t, b, t.TempDir()), create(t, b, t.TempDir())
			require.Implements(t, (*store.TxStorage)(nil), first)
			_, err := second.Commit([]store.Write{store.AppendListRaw(store.Address{Namespace: "a", Key: "l", Kind: store.KindList}, json.RawMessage(`1`))})
			require.NoError(t, err)
			for st, seq := range map[store.Storage]int64{first: 1, second: 2} {
				res, err := store.CommitTx(st, tx)
				require.NoError(t, err)
				assert.Equal(t, []int64{seq, seq + 1}, res.Seqs)
				es, err := st.Entries()
				require.NoError(t, err)
				require.Len(t, es, 1)
				assert.Equal(t, seq, es[0].Seq)
				assert.Equal(t, res.Timestamp, es[0].Timestamp)
				v, err := st.GetValue(tip)
				require.NoError(t, err)
				require.NotNil(t, v)
				assert.Equal(t, seq+1, v.Seq)
			}
			_, err = store.CommitTx(first, tx)
			require.EqualError(t, err, "Duplicate entry or usage id: "+id)
			assert.Equal(t, int64(3), first.NextSeq(), "a refused Tx applied something")
			require.NoError(t, first.Close())
			_, errTx := store.CommitTx(first, tx)
			_, errCommit := first.Commit(tx.Writes())
			require.Error(t, errTx)
			assert.Equal(t, errCommit.Error(), errTx.Error())
			require.NoError(t, second.Close())
		})
	}
}

// TestNilTxIsTheEmptyCommit: a nil Tx commits as Commit(nil) does, on
// every backend, rather than panicking.
func TestNilTxIsTheEmptyCommit(t *testing.T) {
	for _, b := range backends.All() {
		t.Run(b.Name, func(t *testing.T) {
			st := create(t, b, t.TempDir())
			want, err := st.Commit(nil)
			require.NoError(t, err)
			got, err := store.CommitTx(st, nil)
			require.NoError(t, err)
			assert.Equal(t, want.FirstSeq, got.FirstSeq)
			assert.Empty(t, got.Seqs)
			assert.Equal(t, int64(1), st.NextSeq())
			require.NoError(t, st.Close())
		})
	}
}
