package jsonl

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/frameproof/frameproof/impl/store"
)

// On a store opened on a v3 file, the first commit
// upgrades it; CommitTx of NewTx(w) must match Commit(w) there too, both
// for accepted writes (file bytes, result) and for refused ones (error
// text).
func TestLegacyV3CommitTxIsCommit(t *testing.T) {
	cases := map[string][]store.Write{
		"valid": {
			store.SetValueRaw(store.Address{Namespace: "app", Key: "k"}, json.RawMessage(` { "a" : 1 } `)),
			store.InsertEntry(store.Entry{ID: "e1", Raw: json.RawMessage(`{"type":"custom","id":"e1","parentId":null}`)}),
		},
		"shape error": {
			store.SetValueRaw(store.Address{Namespace: "app", Key: "k"}, json.RawMessage(`1`)),
			store.SetValueRaw(store.Address{Namespace: "app", Key: "k"}, json.RawMessage(`{"unterminated"`)),
		},
		"missing parent": {
			store.InsertEntry(store.Entry{ID: "e1", ParentID: ptr("nope"), Raw: json.RawMessage(`{"type":"custom","id":"e1","parentId":"nope"}`)}),
		},
	}
	for name, ws := range cases {
		t.Run(name, func(t *testing.T) {
			open := func() (*Store, string) {
				dir := t.TempDir()
				path := filepath.Join(dir, "s.jsonl")
				require.NoError(t, os.WriteFile(path, []byte(v3File), 0o644))
				s, err := Open(v3Env(dir), path, Options{Sync: SyncNever})
				require.NoError(t, err)
				t.Cleanup(func() { s.Close() })
				return s, path
			}
			a, pa := open()
			b, pb := open()
			resA, errA := a.Commit(ws)
			var resB store.CommitResult
			tx, errB := store.NewTx(ws)
			if errB == nil {
				resB, errB = b.CommitTx(tx)
			}
			if errA != nil || errB != nil {
				require.Error(t, errA)
				require.Error(t, errB)
				assert.Equal(t, errA.Error(), errB.Error(), "the same refusal")
			} else {
				assert.Equal(t, resA, resB)
			}
			fa, _ := os.ReadFile(pa)
			fb, _ := os.ReadFile(pb)
			assert.Equal(t, string(fa), string(fb))
		})
	}
}

func ptr(s string) *string { return &s }

// A failed append of a group holding a Tx, then a dry
// run: the Tx path gives Commit's errors, files and dry-run lines.
func TestTxFailedAppendAndDryRunMatchCommit(t *testing.T) {
	ws := func() []store.Write {
		return []store.Write{set(t, tip, "a"), store.InsertEntry(store.Entry{ID: "e1", Raw: json.RawMessage(`{"type":"custom","id":"e1","parentId":null}`)})}
	}
	run := func(viaTx bool) (string, string, [][]byte) {
		m := newMemFS()
		s := newStore(t, m, Options{})
		commit := func(w []store.Write) error {
			if !viaTx {
				_, err := s.Commit(w)
				return err
			}
			tx, err := store.NewTx(w)
			require.NoError(t, err)
			_, err = s.CommitTx(tx)
			return err
		}
		require.NoError(t, commit([]store.Write{set(t, tip, "0")}))
		m.mu.Lock()
		m.failAt = m.ops + 1
		m.mu.Unlock()
		err1 := commit(ws())
		err2 := commit(ws())
		dry, err := OpenDryRun(testEnv(m), path, Options{})
		require.NoError(t, err)
		var derr error
		if viaTx {
			tx, _ := store.NewTx(ws())
			_, derr = dry.CommitTx(tx)
		} else {
			_, derr = dry.Commit(ws())
		}
		require.NoError(t, derr)
		lines, _, _ := dry.DryRunLines()
		m.mu.Lock()
		f := string(m.files[path])
		m.mu.Unlock()
		return fmt.Sprint(err1, "|", err2), f, lines
	}
	e1, f1, l1 := run(false)
	e2, f2, l2 := run(true)
	assert.Equal(t, e1, e2)
	assert.Equal(t, f1, f2)
	assert.Equal(t, l1, l2)
}
