package corpus

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFamiliesPass runs every corpus entry of every family in-process.
func TestFamiliesPass(t *testing.T) {
	root, err := Root()
	require.NoError(t, err)
	for _, f := range Families {
		t.Run(f.Name, func(t *testing.T) {
			out, err := f.Run(root)
			require.NoError(t, err)
			require.NotEmpty(t, out)
			for _, o := range out {
				assert.NoError(t, o.Err, o.Name)
			}
			t.Logf("%d entries", len(out))
		})
	}
}

// mutate copies one entry of a family into a fresh corpus root, rewrites
// it, and returns that root.
func mutate(t *testing.T, dir, name string, edit func(string) string, companions ...string) string {
	t.Helper()
	root, err := Root()
	require.NoError(t, err)
	tmp := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(tmp, filepath.FromSlash(dir)), 0o755))
	for i, n := range append([]string{name}, companions...) {
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(dir), n))
		require.NoError(t, err)
		s := string(data)
		if i == 0 {
			s = edit(s)
			require.NotEqual(t, string(data), s, "edit changed nothing")
		}
		require.NoError(t, os.WriteFile(filepath.Join(tmp, filepath.FromSlash(dir), n), []byte(s), 0o644))
	}
	return tmp
}

func requireFails(t *testing.T, run func(string) ([]Outcome, error), root, want string) {
	t.Helper()
	out, err := run(root)
	if err != nil {
		assert.Contains(t, err.Error(), want)
		return
	}
	failed := 0
	for _, o := range out {
		if o.Err != nil {
			failed++
			assert.Contains(t, o.Err.Error(), want)
		}
	}
	assert.Equal(t, 1, failed, "exactly the mutated entry fails")
}

// TestFamiliesCatchMutations: each family's runner rejects a broken entry.
func TestFamiliesCatchMutations(t *testing.T) {
	t.Run("codec", func(t *testing.T) {
		root := mutate(t, "vectors/codec", "reduce-edge.jsonl", func(s string) string {
			return strings.Replace(s, `"text":"final"}],`, `"text":"fina1"}],`, 1)
		})
		requireFails(t, RunCodecFamily, root, "message differs at byte")
	})
	t.Run("replay", func(t *testing.T) {
		root := mutate(t, "vectors/replay", "completed-round-never-becomes-prose.anthropic.json", func(s string) string {
			return strings.Replace(s, `"list"`, `"lisp"`, 1)
		})
		requireFails(t, RunReplayFamily, root, "impl/replay body differs")
	})
	t.Run("jsonl-seq", func(t *testing.T) {
		root := mutate(t, "jsonl", "valid.expect.json", func(s string) string {
			return strings.Replace(s, `"nextFirstSeq": 11`, `"nextFirstSeq": 12`, 1)
		}, "valid.jsonl")
		requireFails(t, RunJSONLFamily, root, "first seq 11, want 12")
	})
	t.Run("jsonl-survivors", func(t *testing.T) {
		root := mutate(t, "jsonl", "torn-array-line.expect.json", func(s string) string {
			var m map[string]json.RawMessage
			require.NoError(t, json.Unmarshal([]byte(s), &m))
			var surv []json.RawMessage
			require.NoError(t, json.Unmarshal(m["survivors"], &surv))
			m["survivors"], _ = json.Marshal(surv[:len(surv)-1])
			b, _ := json.Marshal(m)
			return string(b)
		}, "torn-array-line.jsonl")
		requireFails(t, RunJSONLFamily, root, "survivors")
	})
	t.Run("jsonl-error", func(t *testing.T) {
		root := mutate(t, "jsonl", "corrupt-interior-line.expect.json", func(s string) string {
			return strings.Replace(s, `line 3`, `line 4`, 1)
		}, "corrupt-interior-line.jsonl")
		requireFails(t, RunJSONLFamily, root, "want error")
	})
	t.Run("sse", func(t *testing.T) {
		root := mutate(t, "sse", "openai-responses-exec_pi-ai_1.0.3-seed0.json", func(s string) string {
			return strings.Replace(s, `"frameproof.sse/1"`, `"frameproof.sse/9"`, 1)
		})
		requireFails(t, RunSSEFamily, root, "sse/9")
	})
	_, err := RunReplayFamily(t.TempDir())
	assert.ErrorContains(t, err, "no *.json files")
}
