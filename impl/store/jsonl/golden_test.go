package jsonl

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// goldenExpect is corpus/jsonl/<name>.expect.json, schema 1.
type goldenExpect struct {
	Schema        int               `json:"schema"`
	Description   string            `json:"description"`
	Error         string            `json:"error"`         // exact error, <path> = the file path
	Cause         string            `json:"cause"`         // errors.Unwrap(err).Error()
	FileAfterOpen *string           `json:"fileAfterOpen"` // exact bytes after Open
	NextFirstSeq  int64             `json:"nextFirstSeq"`  // FirstSeq of the next commit
	Survivors     []json.RawMessage `json:"survivors"`     // surviving records in seq order, pi record form
}

const corpusDir = "../../../corpus/jsonl"

func TestGoldenCorpus(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(corpusDir, "*.jsonl"))
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(files), 7, "golden corpus present")
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".jsonl")
		t.Run(name, func(t *testing.T) {
			runGolden(t, file, strings.TrimSuffix(file, ".jsonl")+".expect.json")
		})
	}
}

func runGolden(t *testing.T, file, expectFile string) {
	content, err := os.ReadFile(file)
	require.NoError(t, err)
	raw, err := os.ReadFile(expectFile)
	require.NoError(t, err, "every corpus file needs a sidecar")
	var exp goldenExpect
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	require.NoError(t, dec.Decode(&exp))
	require.Equal(t, 1, exp.Schema, "unknown schema")

	m := newMemFS()
	m.put(path, content)
	s, err := Open(testEnv(m), path, Options{})
	if exp.FileAfterOpen != nil {
		if d := cmp.Diff(*exp.FileAfterOpen, string(m.content(path))); d != "" {
			t.Errorf("file after open (-want +got):\n%s", d)
		}
	}
	if exp.Error != "" {
		require.EqualError(t, err, strings.ReplaceAll(exp.Error, "<path>", path))
		if exp.Cause != "" {
			require.NotNil(t, errors.Unwrap(err))
			assert.Equal(t, exp.Cause, errors.Unwrap(err).Error())
		}
		return
	}
	require.NoError(t, err)
	var got []string
	for _, w := range s.state.Snapshot() {
		got = append(got, string(appendRecord(nil, &w)))
	}
	var want []string
	for _, r := range exp.Survivors {
		var buf bytes.Buffer
		require.NoError(t, json.Compact(&buf, r))
		want = append(want, buf.String())
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("survivors (-want +got):\n%s", d)
	}
	res, err := s.Commit(nil)
	require.NoError(t, err)
	assert.Equal(t, exp.NextFirstSeq, res.FirstSeq)
}

// TestGoldenRunnerRejectsWrongExpectations is the mutation test for the
// runner: a sidecar with a wrong outcome must fail.
func TestGoldenRunnerRejectsWrongExpectations(t *testing.T) {
	dir := t.TempDir()
	src, err := os.ReadFile(filepath.Join(corpusDir, "torn-object-line.jsonl"))
	require.NoError(t, err)
	file := filepath.Join(dir, "x.jsonl")
	require.NoError(t, os.WriteFile(file, src, 0o644))
	for name, expect := range map[string]string{
		"wrong seq":       `{"schema":1,"nextFirstSeq":7}`,
		"wrong error":     `{"schema":1,"error":"Invalid JSONL storage <path>: line 2"}`,
		"wrong survivors": `{"schema":1,"nextFirstSeq":6,"survivors":[]}`,
		"untouched file":  `{"schema":1,"nextFirstSeq":6,"fileAfterOpen":""}`,
	} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, "x.expect.json"), []byte(expect), 0o644))
		ft := &testing.T{}
		done := make(chan struct{})
		go func() { defer close(done); runGolden(ft, file, filepath.Join(dir, "x.expect.json")) }()
		<-done
		assert.True(t, ft.Failed(), "%s: runner accepted a wrong expectation", name)
	}
}
