package main

import (
	"bytes"
	"os"
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

// --peer adds codec-peer-identical (pi-ai's encoder on the adapter's events);
// without node it is inconclusive, never a pass.
func TestProviderFuzzPeerFlag(t *testing.T) {
	var out, errb bytes.Buffer
	code := dispatch([]string{"provider", "fuzz", "--wire", "gemini", "--adapter", "go", "--seeds", "20", "--peer", "--corpus", t.TempDir()}, nil, &out, &errb)
	if code == exitInconclusive && os.Getenv("FRAMEPROOF_REQUIRE_PEER") != "1" {
		t.Skip("pi-ai peer unavailable: ", errb.String())
	}
	require.Equal(t, exitPass, code, out.String()+errb.String())
	out.Reset()
	code = dispatch([]string{"provider", "fuzz", "--wire", "chat", "--adapter", "go", "--seeds", "20", "--codec=false", "--corpus", t.TempDir()}, nil, &out, &errb)
	require.Equal(t, exitPass, code, out.String())
}
