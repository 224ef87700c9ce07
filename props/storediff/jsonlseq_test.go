package storediff

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/frameproof/frameproof/impl/env"
	"github.com/frameproof/frameproof/impl/store"
	"github.com/frameproof/frameproof/impl/store/jsonl"
)

// A JSONL file replays only strictly increasing seqs (pi's commit.ts
// validateCommittedWrites, run by JsonlStorage.open): a line that repeats
// the previous line's seq, or goes below it, makes the file invalid at that
// line; a gap opens. The boundary is the previous seq itself. The last line
// holds a usage row, which replays through store.ValidateCommitted.
func TestJSONLOpenRefusesARepeatedSeq(t *testing.T) {
	for _, tc := range []struct {
		seq     string
		refused bool
	}{{`"seq":3`, false}, {`"seq":2`, true}, {`"seq":1`, true}} {
		path := filepath.Join(t.TempDir(), "s.jsonl")
		s, err := jsonl.Create(env.Production(), path, jsonl.Header{ID: "s", CreatedAt: 1, Cwd: "/"}, jsonl.Options{Sync: jsonl.SyncNever})
		require.NoError(t, err)
		for _, v := range []string{`1`, `2`} {
			_, err := s.Commit([]store.Write{store.SetValueRaw(store.Address{Namespace: "a", Key: "k" + v}, []byte(v))})
			require.NoError(t, err)
		}
		// a usage row (with usage.cost, which pi's addUsage needs to open it):
		// lines with rows replay through the full commit rules
		_, err = s.Commit([]store.Write{store.InsertUsage(store.UsageRow{ID: "u3", Raw: []byte(`{"id":"u3","usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}}}`)})})
		require.NoError(t, err)
		require.NoError(t, s.Close())
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		require.Equal(t, 1, bytes.Count(data, []byte(`"seq":3`)))
		require.NoError(t, os.WriteFile(path, bytes.Replace(data, []byte(`"seq":3`), []byte(tc.seq), 1), 0o644))
		_, err = jsonl.Open(env.Production(), path, jsonl.Options{Sync: jsonl.SyncNever})
		if tc.refused {
			require.ErrorContains(t, err, "Invalid JSONL storage "+path+": line 4", tc.seq)
		} else {
			require.NoError(t, err, tc.seq)
		}
	}
}
