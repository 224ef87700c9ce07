package jsonl

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/frameproof/frameproof/impl/store"
)

// A dry-run store replays like Open, never writes, and keeps the exact
// lines its commits would have appended.
func TestDryRunWritesNothingAndKeepsLines(t *testing.T) {
	m := newMemFS()
	content := hdr + rec1 + `{"kind":"va`
	m.put(path, []byte(content))
	s, err := OpenDryRun(testEnv(m), path, Options{})
	require.NoError(t, err)
	res, err := s.Commit([]store.Write{store.DeleteValueRaw(nsK), store.AppendListRaw(nsK, []byte(`{"a":1}`))})
	require.NoError(t, err)
	assert.Equal(t, int64(2), res.FirstSeq)
	v, err := s.GetValue(nsK)
	require.NoError(t, err)
	assert.Nil(t, v, "the commit is applied in memory")
	require.Error(t, s.Compact())
	require.NoError(t, s.Close())

	lines, torn, ok := s.DryRunLines()
	require.True(t, ok)
	assert.True(t, torn, "Open would have dropped the torn tail")
	require.Len(t, lines, 1)
	assert.Equal(t, `[{"kind":"value","op":"delete","seq":2,"namespace":"n","key":"k"},{"kind":"list","op":"append","seq":3,"namespace":"n","key":"k","value":{"a":1}}]`, string(lines[0]))
	assert.Equal(t, content, string(m.content(path)), "file untouched")
	assert.Zero(t, m.ops, "no write of any kind")

	// A real store reports no dry run.
	r, err := Open(testEnv(m), path, Options{})
	require.NoError(t, err)
	_, _, ok = r.DryRunLines()
	assert.False(t, ok)
	assert.Equal(t, hdr+rec1, string(m.content(path)), "Open repairs what the dry run only reported")
}

// Values alias the file buffer Open read; appending to one returned value
// must not overwrite the bytes of the next record.
func TestStoredValuesCannotOverwriteTheirNeighbours(t *testing.T) {
	s := mustOpen(t, hdr+`[{"kind":"value","op":"set","seq":1,"namespace":"n","key":"a","value":[1]},{"kind":"value","op":"set","seq":2,"namespace":"n","key":"b","value":[2]}]`+"\n")
	a, err := s.GetValue(store.Address{Namespace: "n", Key: "a"})
	require.NoError(t, err)
	_ = append(a.Value, "XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX"...)
	b, err := s.GetValue(store.Address{Namespace: "n", Key: "b"})
	require.NoError(t, err)
	assert.Equal(t, "[2]", string(b.Value))
}
