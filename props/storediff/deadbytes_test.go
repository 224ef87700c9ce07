package storediff

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/frameproof/frameproof/impl/env"
	"github.com/frameproof/frameproof/impl/store/jsonl"
	"github.com/frameproof/frameproof/props/crash"
)

// The JSONL store's dead-byte figure (what triggers compaction) equals the
// bytes of the file's records that no longer contribute to the state,
// derived here from the file alone: a value record is dead once a later
// record sets or deletes that value, a list append once a later record
// deletes that list, and every delete record is dead. Each record counts
// its bytes plus one separator (its newline, or its comma or closing
// bracket inside a transaction's array). Compactions in between reset the
// figure to the rewritten file's.
func TestJSONLDeadBytesMatchTheFile(t *testing.T) {
	seeds, commits := 6, 80
	if testing.Short() {
		seeds, commits = 3, 60
	}
	for seed := uint64(0); seed < uint64(seeds); seed++ {
		path := filepath.Join(t.TempDir(), "s.jsonl")
		s, err := jsonl.Create(env.Production(), path, jsonl.Header{ID: "s", CreatedAt: 1, Cwd: "/"}, jsonl.Options{Sync: jsonl.SyncNever})
		require.NoError(t, err)
		g := crash.NewGen(seed)
		for i := 0; i < commits; i++ {
			_, _ = s.Commit(crash.ToStore(g.Commit())) // rejected commits write nothing
			if i%25 == 24 {
				require.NoError(t, s.Compact())
			}
			data, err := os.ReadFile(path)
			require.NoError(t, err)
			dead, total := s.DeadBytes()
			require.Equal(t, int64(len(data)), total, "seed %d commit %d: file bytes", seed, i)
			require.Equal(t, deadRecordBytes(t, data), dead, "seed %d commit %d: dead bytes", seed, i)
		}
		require.NoError(t, s.Close())
	}
}

type fileRecord struct {
	Kind      string `json:"kind"`
	Op        string `json:"op"`
	Namespace string `json:"namespace"`
	Key       string `json:"key"`
	size      int64
}

// deadRecordBytes reads a JSONL file's records after its header and sums
// the dead ones' bytes, scanning from the end (what a later record does to
// an earlier one decides whether it is dead).
func deadRecordBytes(t *testing.T, data []byte) int64 {
	lines := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
	var recs []fileRecord
	for _, line := range lines[1:] {
		raws := []json.RawMessage{line}
		if line[0] == '[' {
			raws = nil
			require.NoError(t, json.Unmarshal(line, &raws))
		}
		for _, raw := range raws {
			var r fileRecord
			require.NoError(t, json.Unmarshal(raw, &r))
			r.size = int64(len(raw)) + 1
			recs = append(recs, r)
		}
	}
	type addr struct{ ns, key string }
	valueReplaced, listDeleted := map[addr]bool{}, map[addr]bool{}
	var dead int64
	for i := len(recs) - 1; i >= 0; i-- {
		r := recs[i]
		a := addr{r.Namespace, r.Key}
		switch {
		case r.Kind == "value":
			if r.Op == "delete" || valueReplaced[a] {
				dead += r.size
			}
			valueReplaced[a] = true
		case r.Kind == "list" && r.Op == "delete":
			dead += r.size
			listDeleted[a] = true
		case r.Kind == "list" && listDeleted[a]:
			dead += r.size
		}
	}
	return dead
}
