package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// quickstartBlock returns the command lines of the README's shell
// quickstart (the sh block after its heading), comments removed.
func quickstartBlock(t *testing.T, readme, heading string) []string {
	t.Helper()
	i := strings.Index(readme, heading)
	require.GreaterOrEqual(t, i, 0, "README has no %q", heading)
	rest := readme[i:]
	start := strings.Index(rest, "```sh\n")
	require.GreaterOrEqual(t, start, 0)
	rest = rest[start+len("```sh\n"):]
	end := strings.Index(rest, "```")
	require.GreaterOrEqual(t, end, 0)
	var lines []string
	for _, line := range strings.Split(rest[:end], "\n") {
		if j := strings.Index(line, " #"); j >= 0 {
			line = line[:j]
		}
		if line = strings.TrimSpace(line); line != "" {
			lines = append(lines, line)
		}
	}
	return lines
}

// Every line of the README's shell quickstart runs as written, from the
// repository root, on the sample inputs in corpus/examples.
func TestQuickstartCommands(t *testing.T) {
	t.Chdir(filepath.Join("..", ".."))
	data, err := os.ReadFile("README.md")
	require.NoError(t, err)
	lines := quickstartBlock(t, string(data), "**Use the codec and projection from a shell.**")
	require.NotEmpty(t, lines)
	for _, line := range lines {
		t.Run(line, func(t *testing.T) {
			cmdline, input, redirected := strings.Cut(line, " < ")
			words, err := splitWords(cmdline)
			require.NoError(t, err)
			require.Greater(t, len(words), 3)
			require.Equal(t, []string{"go", "run", "./cmd/frameproof"}, words[:3], "a quickstart line runs the CLI")
			stdin := []byte{}
			if redirected {
				stdin, err = os.ReadFile(strings.TrimSpace(input))
				require.NoError(t, err, "the quickstart's input file exists")
			}
			var out, errb bytes.Buffer
			code := dispatch(words[3:], bytes.NewReader(stdin), &out, &errb)
			assert.Equal(t, exitPass, code, errb.String())
			assert.NotEmpty(t, out.String())
			assert.NotEqual(t, "null\n", out.String(), "the sample input produces something to see")
		})
	}

	// Every sample file the README names exists.
	for _, m := range regexp.MustCompile(`corpus/examples/[\w./-]+`).FindAllString(string(data), -1) {
		_, err := os.Stat(strings.TrimSuffix(m, "."))
		assert.NoError(t, err, "README names %s", m)
	}
}

// The README stays a page a newcomer reads (issue 27: under about 200
// lines), and its set-up section holds the two commands that work on a
// fresh machine: the main job and the tests.
func TestReadmeFitsOnAFewScreens(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	require.NoError(t, err)
	readme := string(data)
	assert.Less(t, strings.Count(readme, "\n"), 200, "README.md grew past a few screens: move detail to docs/")
	setup, _, found := strings.Cut(readme[strings.Index(readme, "## Set up"):], "## Quickstart")
	require.True(t, found, "README.md has a Set up section before its quickstart")
	assert.Equal(t, []string{"go run ./cmd/frameproof sim", "go test ./..."},
		regexp.MustCompile("(?m)^go [^\n]+$").FindAllString(setup, -1))
}
