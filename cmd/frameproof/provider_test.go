package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
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
}
