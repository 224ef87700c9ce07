package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/frameproof/frameproof/props/corpus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCorpusRunPasses(t *testing.T) {
	code, stdout, stderr := run("corpus", "run")
	require.Equal(t, exitPass, code, stdout+stderr)
	for _, f := range corpus.Families {
		assert.Regexp(t, `(?m)^`+f.Name+` +\d+ +\d+ +0$`, stdout)
	}
	assert.Contains(t, stdout, ": PASS\n")

	junit := filepath.Join(t.TempDir(), "corpus.xml")
	code, stdout, _ = run("corpus", "run", "--json", "--junit", junit)
	require.Equal(t, exitPass, code)
	r := decodeReport(t, stdout)
	assert.Equal(t, "corpus run", r.Command)
	require.Len(t, r.Suites, len(corpus.Families))
	for i, s := range r.Suites {
		assert.Equal(t, corpus.Families[i].Name, s.Name)
		assert.Positive(t, s.Tests)
		assert.Equal(t, s.Tests, s.Passed)
	}
	x := decodeJUnit(t, junit)
	assert.Equal(t, r.Tests, x.Tests)
	assert.Equal(t, "frameproof.corpus.run.codec", x.Suites[0].Name)
}

// TestCorpusRunFailsOnBrokenEntry: a corpus with one wrong expectation
// exits 1 and names the entry.
func TestCorpusRunFailsOnBrokenEntry(t *testing.T) {
	root, err := corpus.Root()
	require.NoError(t, err)
	tmp := t.TempDir()
	dst := filepath.Join(tmp, "vectors", "codec")
	require.NoError(t, os.MkdirAll(dst, 0o755))
	data, err := os.ReadFile(filepath.Join(corpus.CodecDir(root), "parse-edge.jsonl"))
	require.NoError(t, err)
	broken := strings.Replace(string(data), `"expect":{"result":{}}`, `"expect":{"result":[]}`, 1)
	require.NotEqual(t, string(data), broken)
	require.NoError(t, os.WriteFile(filepath.Join(dst, "parse-edge.jsonl"), []byte(broken), 0o644))

	code, stdout, _ := run("corpus", "run", "--corpus", tmp, "--family", "codec")
	require.Equal(t, exitFail, code, stdout)
	assert.Contains(t, stdout, "FAIL parse/edge-000")
	assert.Contains(t, stdout, "result differs at byte 0")
	assert.Contains(t, stdout, ": FAIL\n")

	code, stdout, _ = run("corpus", "run", "--corpus", tmp, "--family", "replay", "--json")
	require.Equal(t, exitIO, code, "a family with no entries is an I/O error, as in conform")
	assert.Contains(t, stdout, "replay/(load)")
}

// A corpus run that cannot read its entries has no verdict on them: exit 4
// (I/O), the code conform gives the same vectors (issue 29 class 8: corpus
// run said 1, "a failure found"): an empty corpus directory, and a vector
// file that cannot be read.
func TestCorpusRunUnreadableIsAnIOErrorAsInConform(t *testing.T) {
	empty := t.TempDir()
	code, stdout, stderr := run("corpus", "run", "--corpus", empty)
	assert.Equal(t, exitIO, code, stdout+stderr)
	assert.Contains(t, stderr, "no codec vectors")
	code, _, _ = run("conform", "--self", "--corpus", empty)
	assert.Equal(t, exitIO, code, "conform agrees")

	if os.Geteuid() == 0 {
		t.Skip("root reads a file without read permission")
	}
	root, err := corpus.Root()
	require.NoError(t, err)
	tmp := t.TempDir()
	dst := filepath.Join(tmp, "vectors", "codec")
	require.NoError(t, os.MkdirAll(dst, 0o755))
	data, err := os.ReadFile(filepath.Join(corpus.CodecDir(root), "parse-edge.jsonl"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dst, "parse-edge.jsonl"), data, 0o000))
	code, stdout, stderr = run("corpus", "run", "--corpus", tmp, "--family", "codec")
	assert.Equal(t, exitIO, code, stdout+stderr)
	assert.Contains(t, stderr, "permission denied")
	code, _, _ = run("conform", "--self", "--corpus", tmp)
	assert.Equal(t, exitIO, code, "conform agrees")
}

func TestCorpusRunUsage(t *testing.T) {
	for name, args := range map[string][]string{
		"no subcommand": {},
		"unknown sub":   {"walk"},
		"bad family":    {"run", "--family", "codec,nope"},
		"bad flag":      {"run", "--nope"},
		"extra":         {"run", "x"},
		"corpus":        {"run", "--corpus", "/nonexistent"},
	} {
		code, _, stderr := run(append([]string{"corpus"}, args...)...)
		assert.Equal(t, exitUsage, code, name)
		assert.NotEmpty(t, stderr, name)
	}
}
