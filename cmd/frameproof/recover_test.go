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

const recoverCorpus = "../../corpus/jsonl/recover"

func copyCorpus(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(recoverCorpus, name+".jsonl"))
	require.NoError(t, err)
	p := filepath.Join(t.TempDir(), name+".jsonl")
	require.NoError(t, os.WriteFile(p, b, 0o644))
	return p
}

func runRecoverCLI(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := runRecover(args, nil, &out, &errb)
	return code, out.String(), errb.String()
}

// The CLI prints the golden report (exit 1: an orphan), writes nothing,
// then --apply recovers it (exit 0) keeping a backup, after which the file
// is clean (exit 0).
func TestRecoverCLI(t *testing.T) {
	p := copyCorpus(t, "crashed-mid-text")
	before, _ := os.ReadFile(p)
	golden, err := os.ReadFile(filepath.Join(recoverCorpus, "crashed-mid-text.golden.txt"))
	require.NoError(t, err)

	code, out, _ := runRecoverCLI("--now", "1767225700000", p)
	require.Equal(t, exitFail, code)
	_, wantBody, _ := strings.Cut(string(golden), "\n")
	_, gotBody, _ := strings.Cut(out, "\n")
	assert.Equal(t, wantBody, gotBody)
	after, _ := os.ReadFile(p)
	require.Equal(t, before, after, "no write without --apply")

	code, out, stderr := runRecoverCLI("--apply", "--now", "1767225700000", p)
	require.Equal(t, exitPass, code, stderr)
	assert.Contains(t, out, "recovery committed (fsynced)")
	kept, err := os.ReadFile(p + ".bak")
	require.NoError(t, err)
	assert.Equal(t, before, kept)

	code, out, _ = runRecoverCLI(p)
	require.Equal(t, exitPass, code)
	assert.Contains(t, out, "0 orphans, 0 broken rules: clean")

	code, _, stderr = runRecoverCLI("--apply", p)
	assert.Equal(t, exitIO, code, "the backup exists: %s", stderr)
}

func TestRecoverCLIExitCodes(t *testing.T) {
	code, _, _ := runRecoverCLI()
	assert.Equal(t, exitUsage, code)
	code, _, _ = runRecoverCLI("--backup", "x", "y.jsonl")
	assert.Equal(t, exitUsage, code)
	code, _, stderr := runRecoverCLI(filepath.Join(t.TempDir(), "missing.jsonl"))
	assert.Equal(t, exitUsage, code, stderr) // the exit table: a named input missing is a usage error
	assert.Contains(t, stderr, "no such file")

	code, out, _ := runRecoverCLI(copyCorpus(t, "settled-leftover-list"))
	assert.Equal(t, exitFail, code)
	assert.Contains(t, out, "broken: frame list of a settled operation")

	bad := filepath.Join(t.TempDir(), "bad.jsonl")
	require.NoError(t, os.WriteFile(bad, []byte(`{"v":4,"kind":"header","id":"s","storageVersion":1,"createdAt":1,"cwd":"/"}`+"\n{nope\n"), 0o644))
	code, _, stderr = runRecoverCLI(bad)
	assert.Equal(t, exitFail, code)
	assert.Contains(t, stderr, bad+": line 2")
}

// --backup is checked before the session is read: an existing backup or
// an uncreatable one stops --apply with exit 4, nothing printed and the
// session untouched.
func TestRecoverBackupCheckedUpFront(t *testing.T) {
	p := copyCorpus(t, "crashed-mid-text")
	before, _ := os.ReadFile(p)
	taken := filepath.Join(t.TempDir(), "taken.bak")
	require.NoError(t, os.WriteFile(taken, []byte("keep me"), 0o644))
	blocker := filepath.Join(t.TempDir(), "file")
	require.NoError(t, os.WriteFile(blocker, nil, 0o644))

	for _, backup := range []string{taken, filepath.Join(blocker, "sub", "b.bak")} {
		code, out, stderr := runRecoverCLI("--apply", "--backup", backup, p)
		assert.Equal(t, exitIO, code, stderr)
		assert.Empty(t, out)
		assert.Regexp(t, `^frameproof recover: --backup `+regexp.QuoteMeta(backup)+`: [^\n]+\n$`, stderr)
	}
	after, _ := os.ReadFile(p)
	assert.Equal(t, before, after)
	kept, _ := os.ReadFile(taken)
	assert.Equal(t, "keep me", string(kept))

	code, _, stderr := runRecoverCLI("--apply", "--backup", p, p)
	assert.Equal(t, exitUsage, code, stderr)
	assert.Contains(t, stderr, "is the session file itself")
}

// What an outside review of --apply found, each now refused or kept safe.
func TestRecoverApplyGuards(t *testing.T) {
	t.Run("the store's staging file is never the backup nor overwritten", func(t *testing.T) {
		p := copyCorpus(t, "crashed-torn-frame")
		code, _, errs := runRecoverCLI("--apply", "--backup", p+".tmp", p)
		assert.Equal(t, exitUsage, code, errs)
		require.NoError(t, os.WriteFile(p+".tmp", []byte("precious"), 0o644))
		code, _, errs = runRecoverCLI("--apply", p)
		assert.Equal(t, exitPass, code, errs)
		kept, err := os.ReadFile(p + ".tmp")
		require.NoError(t, err)
		assert.Equal(t, "precious", string(kept))
	})
	t.Run("a read-only session is refused; a private one stays private", func(t *testing.T) {
		p := copyCorpus(t, "crashed-torn-frame")
		before, _ := os.ReadFile(p)
		require.NoError(t, os.Chmod(p, 0o444))
		code, _, errs := runRecoverCLI("--apply", p)
		assert.Equal(t, exitIO, code, errs)
		assert.Contains(t, errs, "read-only")
		after, _ := os.ReadFile(p)
		assert.Equal(t, before, after)
		assert.NoFileExists(t, p+".bak")

		require.NoError(t, os.Chmod(p, 0o600))
		code, _, errs = runRecoverCLI("--apply", p)
		require.Equal(t, exitPass, code, errs)
		for _, f := range []string{p, p + ".bak"} {
			info, err := os.Stat(f)
			require.NoError(t, err)
			assert.Equal(t, os.FileMode(0o600), info.Mode().Perm(), f)
		}
	})
	t.Run("a symbolic link is followed to the file pi opens", func(t *testing.T) {
		p := copyCorpus(t, "crashed-torn-frame")
		link := filepath.Join(t.TempDir(), "link.jsonl")
		require.NoError(t, os.Symlink(p, link))
		code, _, errs := runRecoverCLI("--apply", link)
		require.Equal(t, exitPass, code, errs)
		info, err := os.Lstat(link)
		require.NoError(t, err)
		assert.Equal(t, os.ModeSymlink, info.Mode().Type(), "the link is still a link")
		code, _, errs = runRecoverCLI(p)
		assert.Equal(t, exitPass, code, "the target is recovered: %s", errs)
	})
	t.Run("a FIFO is refused instead of blocking", func(t *testing.T) {
		fifo := filepath.Join(t.TempDir(), "fifo.jsonl")
		if err := mkfifo(fifo); err != nil {
			t.Skipf("no FIFOs here: %v", err)
		}
		code, _, errs := runRecoverCLI(fifo)
		assert.Equal(t, exitUsage, code, errs) // a named input of the wrong type (the exit table)
		assert.Contains(t, errs, "not a regular file")
	})
	t.Run("a clean file takes --apply twice without a backup", func(t *testing.T) {
		p := copyCorpus(t, "crashed-mid-text")
		require.Equal(t, exitPass, func() int { c, _, _ := runRecoverCLI("--apply", p); return c }())
		require.NoError(t, os.Remove(p+".bak"))
		for range 2 {
			code, _, errs := runRecoverCLI("--apply", p)
			assert.Equal(t, exitPass, code, errs)
			assert.NoFileExists(t, p+".bak")
		}
	})
	t.Run("a bad line's error says what is wrong with it", func(t *testing.T) {
		p := copyCorpus(t, "crashed-mid-text")
		b, _ := os.ReadFile(p)
		lines := strings.SplitAfter(string(b), "\n")
		lines[2] = "{not json\n"
		require.NoError(t, os.WriteFile(p, []byte(strings.Join(lines, "")), 0o644))
		code, _, errs := runRecoverCLI(p)
		assert.Equal(t, exitFail, code)
		assert.Regexp(t, `line 3: .+`, errs)
	})
}
