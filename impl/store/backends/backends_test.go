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
