package main

import (
	"fmt"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// conform --suite store against `frameproof serve store` (this test binary
// acting as the CLI): every case passes on a durable backend; the kill
// cases are not applicable to the memory backend, which still passes.
func TestConformStoreSuite(t *testing.T) {
	t.Setenv("FRAMEPROOF_AS_CLI", "fake-suite")
	t.Setenv("TMPDIR", t.TempDir())
	for _, backend := range []string{"jsonl", "memory"} {
		exec := fmt.Sprintf("'%s' serve store --backend %s --dir {dir} --sync never", os.Args[0], backend)
		code, stdout, stderr := run("conform", "--suite", "store", "--exec", exec, "--checks", "2", "--steps", "8", "--kill-commits", "3")
		require.Equal(t, exitPass, code, "%s: %s%s", backend, stdout, stderr)
		assert.Contains(t, stdout, "ok   state machine\n")
		assert.Contains(t, stdout, "verdict         PASS")
		if backend == "memory" {
			assert.Contains(t, stdout, "n/a  kill after every commit")
		} else {
			assert.Contains(t, stdout, "ok   kill during a commit\n")
		}
	}
}

func TestConformStoreUsage(t *testing.T) {
	for _, args := range [][]string{
		{"conform", "--suite", "store"},
		{"conform", "--suite", "store", "--exec", "x", "--case", "no such case"},
		{"conform", "--suite", "store", "--exec", "x", "--checks", "0"},
		{"conform", "--suite", "tables", "--exec", "x"},
	} {
		code, stdout, stderr := run(args...)
		assert.Equal(t, exitUsage, code, "%v: %s%s", args, stdout, stderr)
	}
	code, stdout, stderr := run("conform", "--suite", "store", "--exec", "/nonexistent/store-server")
	assert.Equal(t, exitCode(classEnvironment), code, "%s%s", stdout, stderr)
}
