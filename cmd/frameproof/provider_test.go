package main

import (
	"bytes"
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/frameproof/frameproof/props/peer"

	"github.com/stretchr/testify/require"

	impl "github.com/frameproof/frameproof/impl/provider"
	"github.com/frameproof/frameproof/props/provider"
)

func TestProviderFuzzExitCodes(t *testing.T) {
	run := func(args ...string) (int, string) {
		var out, errb bytes.Buffer
		code := dispatch(append([]string{"provider"}, args...), nil, &out, &errb)
		return code, out.String() + errb.String()
	}
	code, _ := run("fuzz", "--wire", "anthropic")
	require.Equal(t, exitUsage, code, "missing subject is a usage error")
	code, _ = run("fuzz", "--wire", "nope", "--adapter", "go")
	require.Equal(t, exitUsage, code)

	code, out := run("fuzz", "--wire", "openai-responses", "--adapter", "go", "--seeds", "50", "--corpus", t.TempDir())
	require.Equal(t, exitPass, code, out)

	dir := t.TempDir()
	code, out = run("fuzz", "--wire", "anthropic", "--adapter", "go", "--bug", "event-after-done", "--seeds", "50", "--corpus", dir)
	require.Equal(t, exitFail, code, out)
	require.Contains(t, out, "nothing-after-terminal")
	require.True(t, strings.Contains(out, "reproduce: frameproof provider fuzz --wire anthropic-messages --adapter go --bug event-after-done --seed"), out)
	require.Contains(t, out, "saved "+dir)

	// Without --corpus nothing is saved anywhere, the repository's corpus
	// included (the working directory here is cmd/frameproof; run from the
	// repository root it would be corpus/sse).
	t.Chdir(t.TempDir())
	require.NoError(t, os.MkdirAll("corpus/sse", 0o755))
	code, out = run("fuzz", "--wire", "anthropic", "--adapter", "go", "--bug", "event-after-done", "--seeds", "50")
	require.Equal(t, exitFail, code, out)
	require.Contains(t, out, "shrunk failures not saved: --corpus DIR saves them")
	entries, err := os.ReadDir("corpus/sse")
	require.NoError(t, err)
	require.Empty(t, entries, "fuzzing wrote into the corpus unasked")
}

// --peer adds codec-peer-identical (pi-ai's encoder on the adapter's events);
// without node it is an environment error (exit 4), never a pass.
func TestProviderFuzzPeerFlag(t *testing.T) {
	peer.Require(t, peer.PiAI)
	var out, errb bytes.Buffer
	code := dispatch([]string{"provider", "fuzz", "--wire", "gemini", "--adapter", "go", "--seeds", "20", "--peer", "--corpus", t.TempDir()}, nil, &out, &errb)
	require.Equal(t, exitPass, code, out.String()+errb.String())
	out.Reset()
	code = dispatch([]string{"provider", "fuzz", "--wire", "chat", "--adapter", "go", "--seeds", "20", "--codec=false", "--corpus", t.TempDir()}, nil, &out, &errb)
	require.Equal(t, exitPass, code, out.String())
}

// splitCommand splits a reproduction line into arguments, unquoting the Go
// %q-quoted ones (--exec "CMD").
func splitCommand(t *testing.T, line string) []string {
	var args []string
	for rest := strings.TrimSpace(line); rest != ""; rest = strings.TrimSpace(rest) {
		if rest[0] == '"' {
			q, err := strconv.QuotedPrefix(rest)
			require.NoError(t, err, line)
			arg, err := strconv.Unquote(q)
			require.NoError(t, err, line)
			args = append(args, arg)
			rest = rest[len(q):]
			continue
		}
		tok, after, _ := strings.Cut(rest, " ")
		args = append(args, tok)
		rest = after
	}
	return args
}

// Every reproduction line the fuzzer prints fails again with the same
// verdicts when run, and running it writes nothing to the corpus.
func TestProviderFuzzReproductionLinesReproduce(t *testing.T) {
	for _, bug := range impl.Bugs {
		t.Run(bug.String(), func(t *testing.T) {
			var out, errb bytes.Buffer
			code := dispatch([]string{"provider", "fuzz", "--wire", "openai-completions", "--adapter", "go", "--bug", bug.String(),
				"--seeds", "40", "--json", "--corpus", t.TempDir()}, nil, &out, &errb)
			require.Equal(t, exitFail, code, errb.String())
			var sum provider.FuzzSummary
			require.NoError(t, json.Unmarshal(out.Bytes(), &sum), out.String())
			require.NotEmpty(t, sum.Reproducer)
			for _, line := range sum.Reproducer[:min(3, len(sum.Reproducer))] {
				args := splitCommand(t, line)
				require.Equal(t, "frameproof", args[0], line)
				dir := t.TempDir()
				out.Reset()
				code := dispatch(append(args[1:], "--json", "--corpus", dir), nil, &out, &errb)
				require.Equal(t, exitFail, code, "%s did not fail again: %s", line, out.String())
				var again provider.FuzzSummary
				require.NoError(t, json.Unmarshal(out.Bytes(), &again), out.String())
				require.Equal(t, 1, again.Streams, line)
				require.Equal(t, []string{line}, again.Reproducer, "a reproduction reproduces itself")
				entries, err := os.ReadDir(dir)
				require.NoError(t, err)
				require.Empty(t, entries, "%s wrote to the corpus", line)
			}
		})
	}
}
