package main

import (
	"bytes"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/frameproof/frameproof/model/wire"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var updateProjectGolden = flag.Bool("update-project-golden", false, "rewrite cmd/frameproof/testdata golden files")

func projectRun(stdin string, args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := dispatch(args, strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

func TestProjectGolden(t *testing.T) {
	in, err := os.ReadFile("testdata/project/transcript.jsonl")
	require.NoError(t, err)
	cases := map[string][]string{
		"anthropic-same-model":   {"--wire", "anthropic", "--provider", "anthropic", "--model", "claude-x"},
		"anthropic-vision":       {"--wire", "anthropic", "--vision", "--model", "claude-y"},
		"openai-chat":            {"--wire", "openai-chat", "--model", "gpt-x"},
		"openai-responses":       {"--wire", "openai-responses", "--vision", "--model", "gpt-x"},
		"gemini":                 {"--wire", "gemini", "--model", "gemini-3-pro"},
		"anthropic-microcompact": {"--wire", "anthropic", "--microcompact", "0"},
	}
	for name, args := range cases {
		code, stdout, stderr := projectRun(string(in), append([]string{"project"}, args...)...)
		require.Equal(t, exitPass, code, "%s: %s", name, stderr)
		require.NoError(t, wire.Validate(args[1], []byte(stdout), wire.Options{Vision: strings.Contains(name, "vision") || name == "openai-responses", Model: args[len(args)-1]}), name)
		golden := filepath.Join("testdata/project", name+".golden.json")
		if *updateProjectGolden {
			require.NoError(t, os.WriteFile(golden, []byte(stdout), 0o644))
			continue
		}
		want, err := os.ReadFile(golden)
		require.NoError(t, err, "run go test ./cmd/frameproof -update-project-golden")
		require.Equal(t, string(want), stdout, name)
	}
}

func TestProjectJSONArrayInput(t *testing.T) {
	code, stdout, stderr := projectRun(`[{"role":"user","content":"hi","timestamp":1}]`, "project", "--wire", "openai-chat", "--model", "m")
	require.Equal(t, exitPass, code, stderr)
	require.Equal(t, `{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"hi"}]}]}`+"\n", stdout)
}

func TestProjectBadInputAndFlags(t *testing.T) {
	code, _, stderr := projectRun("{\"role\":\"user\",\"content\":\"a\",\"timestamp\":1}\nnot json\n", "project", "--wire", "gemini")
	require.Equal(t, exitFail, code)
	require.Contains(t, stderr, "line 2")

	code, _, stderr = projectRun(`[{"role":"user","content":"a","timestamp":1},{"role":"toolResult"}]`, "project", "--wire", "gemini")
	require.Equal(t, exitFail, code)
	require.Contains(t, stderr, "index 1")

	code, _, stderr = projectRun("", "project", "--wire", "anthropic")
	require.Equal(t, exitFail, code)
	require.Contains(t, stderr, "nothing to project")

	code, _, stderr = projectRun("", "project", "--wire", "bedrock")
	require.Equal(t, exitUsage, code)
	require.Contains(t, stderr, "--wire must be one of")

	code, _, _ = projectRun("", "project")
	require.Equal(t, exitUsage, code)
	code, _, _ = projectRun("", "project", "--wire", "gemini", "--bogus")
	require.Equal(t, exitUsage, code)
	code, _, _ = projectRun("", "project", "--wire", "gemini", "extra")
	require.Equal(t, exitUsage, code)
}

// A message without "role" says the role is missing, not `unsupported role ""`.
func TestProjectNamesAMissingRole(t *testing.T) {
	var out, errb bytes.Buffer
	code := dispatch([]string{"project", "--wire", "anthropic"}, strings.NewReader(`[{"content":"x"}]`), &out, &errb)
	assert.Equal(t, exitFail, code)
	assert.Contains(t, errb.String(), "[0].role: missing (want user, assistant or toolResult)")
}

// A transcript over --max-input is refused after reading at most one byte
// more than the limit.
func TestProjectBoundsItsInput(t *testing.T) {
	var out, errb bytes.Buffer
	in := &countingReader{r: strings.NewReader(strings.Repeat(" ", 10000))}
	code := dispatch([]string{"project", "--wire", "anthropic", "--max-input", "100"}, in, &out, &errb)
	assert.Equal(t, exitFail, code)
	assert.Contains(t, errb.String(), "larger than --max-input 100 bytes")
	assert.LessOrEqual(t, in.n, 101+512, "read far past the limit")
}

type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	if len(p) > 512 {
		p = p[:512]
	}
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}
