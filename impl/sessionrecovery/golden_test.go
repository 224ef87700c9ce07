package sessionrecovery

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"encoding/json"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/frameproof/frameproof/impl/env"
	"github.com/frameproof/frameproof/impl/lane"
	"github.com/frameproof/frameproof/impl/store/jsonl"
)

// Every crashed session in corpus/jsonl/recover inspects to its golden
// output without touching the file, and --apply commits exactly the printed
// transaction, keeps a byte-identical backup, and leaves a file with no
// orphan.
func TestGoldenRecover(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(corpusDir, "*.jsonl"))
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(files), 3, "crashed sessions present")
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".jsonl")
		t.Run(name, func(t *testing.T) {
			original, err := os.ReadFile(file)
			require.NoError(t, err)
			want, err := os.ReadFile(filepath.Join(corpusDir, name+".golden.txt"))
			require.NoError(t, err)
			p := filepath.Join(t.TempDir(), name+".jsonl")
			require.NoError(t, os.WriteFile(p, original, 0o644))

			r, err := Inspect(testEnv(), p, Options{})
			require.NoError(t, err)
			var out bytes.Buffer
			require.NoError(t, Render(&out, name+".jsonl", r, false))
			if d := cmp.Diff(string(want), out.String()); d != "" {
				t.Errorf("inspect output (-golden +got):\n%s", d)
			}
			after, err := os.ReadFile(p)
			require.NoError(t, err)
			require.Equal(t, original, after, "inspect never writes")

			backup := p + ".bak"
			applied, err := Apply(testEnv(), p, backup, Options{MaxFileBytes: 1 << 20})
			require.NoError(t, err)
			require.Len(t, applied.Orphans, len(r.Orphans))
			for i := range r.Orphans {
				assert.Equal(t, r.Orphans[i].Transaction, applied.Orphans[i].Transaction, "apply commits the printed transaction")
			}
			again, err := Inspect(testEnv(), p, Options{})
			require.NoError(t, err)
			assert.Empty(t, again.Orphans, "nothing left to recover")
			assert.False(t, again.TornTail)
			if len(r.Orphans) == 0 && !r.TornTail {
				// nothing to write: no backup, and a second apply is as clean
				assert.False(t, applied.BackedUp)
				assert.NoFileExists(t, backup)
				return
			}
			assert.True(t, applied.BackedUp)
			kept, err := os.ReadFile(backup)
			require.NoError(t, err)
			assert.Equal(t, original, kept, "the backup is the original")
			require.NoError(t, os.WriteFile(p, original, 0o644))
			_, err = Apply(testEnv(), p, backup, Options{MaxFileBytes: 1 << 20})
			require.ErrorIs(t, err, fs.ErrExist, "an existing backup is never overwritten")
		})
	}
}

// A recovered orphan's transaction settles it: synthetic entry, usage row,
// tip and the frame-list delete (pi's recovery.ts via impl/lane).
func TestRecoveryTransactionShape(t *testing.T) {
	p := filepath.Join(t.TempDir(), "s.jsonl")
	content, err := os.ReadFile(filepath.Join(corpusDir, "crashed-mid-text.jsonl"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(p, content, 0o644))
	r, err := Inspect(testEnv(), p, Options{})
	require.NoError(t, err)
	require.Len(t, r.Orphans, 1)
	o := r.Orphans[0]
	assert.Equal(t, 3, o.Frames)
	kinds := []string{}
	for _, rec := range o.Transaction {
		kinds = append(kinds, string(rec[:30]))
	}
	joined := strings.Join(kinds, "|")
	assert.Contains(t, joined, `{"kind":"entry"`)
	assert.Contains(t, joined, `{"kind":"usage"`)
	assert.Contains(t, string(bytes.Join(rawBytes(o.Transaction), nil)), `"namespace":"`+lane.NSAssistantFrame+`","key":"`+o.Operation+":"+o.ResponseEntryID+`"}`)
}

// A file that breaks a replay rule is refused with its line, unwritten.
func TestBadFileNamesTheLine(t *testing.T) {
	p := filepath.Join(t.TempDir(), "s.jsonl")
	content, err := os.ReadFile(filepath.Join(corpusDir, "crashed-mid-text.jsonl"))
	require.NoError(t, err)
	lines := strings.SplitAfter(string(content), "\n")
	bad := strings.Join(lines[:3], "") + lines[2] + strings.Join(lines[3:], "") // line 4 repeats line 3's seqs
	require.NoError(t, os.WriteFile(p, []byte(bad), 0o644))
	_, err = Inspect(testEnv(), p, Options{})
	var se *jsonl.StorageError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, 4, se.Line)
	after, _ := os.ReadFile(p)
	assert.Equal(t, bad, string(after))
}

func rawBytes(rs []json.RawMessage) [][]byte {
	out := make([][]byte, len(rs))
	for i, r := range rs {
		out[i] = r
	}
	return out
}

// A file over the bound is refused before it is read past it, by Inspect
// and by Apply, and is left unwritten with no backup made.
func TestOversizedFileIsRefusedUnread(t *testing.T) {
	dir := t.TempDir()
	p, backup := filepath.Join(dir, "s.jsonl"), filepath.Join(dir, "s.bak")
	content, err := os.ReadFile(filepath.Join(corpusDir, "crashed-mid-text.jsonl"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(p, content, 0o644))
	limit := Options{MaxFileBytes: int64(len(content)) - 1}
	_, err = Inspect(testEnv(), p, limit)
	require.ErrorIs(t, err, env.ErrTooLarge)
	_, err = Apply(testEnv(), p, backup, limit)
	require.ErrorIs(t, err, env.ErrTooLarge)
	after, _ := os.ReadFile(p)
	assert.Equal(t, string(content), string(after))
	assert.NoFileExists(t, backup)
	_, err = Inspect(testEnv(), p, Options{MaxFileBytes: int64(len(content))})
	require.NoError(t, err, "a file of exactly the bound is read")
}
