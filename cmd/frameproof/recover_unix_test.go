//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A --backup that reaches the session or the store's staging file through
// a symbolic link to the session's directory is refused before anything is
// written (issue 29: it passed the path check, the repair overwrote it and
// renamed it over the session, and "backup kept" was still printed).
func TestRecoverApplyBackupThroughSymlinkedDir(t *testing.T) {
	p := copyCorpus(t, "crashed-torn-frame")
	before, err := os.ReadFile(p)
	require.NoError(t, err)
	link := filepath.Join(t.TempDir(), "l")
	require.NoError(t, os.Symlink(filepath.Dir(p), link))
	base := filepath.Base(p)
	for _, backup := range []string{filepath.Join(link, base+".tmp"), filepath.Join(link, base)} {
		code, out, errs := runRecoverCLI("--apply", "--backup", backup, p)
		assert.Equal(t, exitUsage, code, errs)
		assert.Empty(t, out)
		assert.NotContains(t, errs, "backup kept")
		after, err := os.ReadFile(p)
		require.NoError(t, err)
		assert.True(t, bytes.Equal(before, after), "the session is untouched")
		assert.NoFileExists(t, p+".tmp")
	}
	// A link as the backup's own last element, to a staging file not yet
	// there, is refused as well.
	dangling := filepath.Join(t.TempDir(), "b.bak")
	require.NoError(t, os.Symlink(p+".tmp", dangling))
	code, _, errs := runRecoverCLI("--apply", "--backup", dangling, p)
	assert.NotEqual(t, exitPass, code, errs)
	assert.NoFileExists(t, p+".tmp")
}

// While another process holds the session's lock, --apply changes nothing.
func TestRecoverApplyRefusesHeldLock(t *testing.T) {
	p := copyCorpus(t, "crashed-torn-frame")
	before, err := os.ReadFile(p)
	require.NoError(t, err)
	f, err := os.Open(p)
	require.NoError(t, err)
	defer f.Close()
	require.NoError(t, syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB))

	code, out, errs := runRecoverCLI("--apply", p)
	assert.Equal(t, exitIO, code, errs)
	assert.Empty(t, out)
	assert.Contains(t, errs, "locked by another process")
	after, err := os.ReadFile(p)
	require.NoError(t, err)
	assert.True(t, bytes.Equal(before, after), "the session is untouched")
	assert.NoFileExists(t, p+".bak")

	require.NoError(t, syscall.Flock(int(f.Fd()), syscall.LOCK_UN))
	code, _, errs = runRecoverCLI("--apply", p)
	assert.Equal(t, exitPass, code, errs)
}

// A torn tail is dropped in place: the session keeps its inode, so a
// process holding it open keeps writing into the file pi reads.
func TestRecoverApplyTruncatesInPlace(t *testing.T) {
	p := copyCorpus(t, "crashed-torn-frame")
	info, err := os.Stat(p)
	require.NoError(t, err)
	code, _, errs := runRecoverCLI("--apply", p)
	require.Equal(t, exitPass, code, errs)
	assert.Contains(t, errs, "backup kept at "+p+".bak")
	now, err := os.Stat(p)
	require.NoError(t, err)
	assert.True(t, os.SameFile(info, now), "the session was replaced, not truncated")
	assert.NoFileExists(t, p+".tmp")
}

// A second process holds the torn session open and appends to it (as pi
// does, without a lock; here one long line in pieces, so that the file
// stays a torn session recovery can read) while --apply runs: --apply
// refuses, and every byte the writer appended is in the session afterwards
// (issue 29: the repair renamed a new file over it and 50 of 50 lines went
// to the unlinked one, exit 0).
func TestRecoverApplyConcurrentWriterRefusedNotLost(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh here to run the second writer")
	}
	p := copyCorpus(t, "crashed-torn-frame")
	before, err := os.ReadFile(p)
	require.NoError(t, err)
	stop := filepath.Join(t.TempDir(), "stop")
	writer := exec.Command("sh", "-c", `exec 3>>"$1"; i=0
while [ ! -e "$2" ] && [ $i -lt 200000 ]; do i=$((i+1)); printf 'w%d,' $i >&3; done
echo >&3; echo $i`, "sh", p, stop)
	var count bytes.Buffer
	writer.Stdout = &count
	require.NoError(t, writer.Start())
	stopped := false
	defer func() {
		if !stopped {
			_ = writer.Process.Kill()
			_ = writer.Wait()
		}
	}()
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(time.Millisecond) {
		info, err := os.Stat(p)
		require.NoError(t, err)
		if info.Size() > int64(len(before)) {
			break
		}
		require.True(t, time.Now().Before(deadline), "the writer never wrote")
	}

	code, _, errs := runRecoverCLI("--apply", p)

	require.NoError(t, os.WriteFile(stop, nil, 0o644))
	require.NoError(t, writer.Wait())
	stopped = true
	assert.Equal(t, exitIO, code, errs)
	assert.Contains(t, errs, "another process")
	assert.NotContains(t, errs, "backup kept")

	n, err := strconv.Atoi(strings.TrimSpace(count.String()))
	require.NoError(t, err)
	after, err := os.ReadFile(p)
	require.NoError(t, err)
	kept := before[:bytes.LastIndexByte(before, '\n')+1]
	require.True(t, bytes.HasPrefix(after, kept), "the committed lines are kept")
	rest := string(after[len(kept):])
	for i := 1; i <= n; i++ {
		line := fmt.Sprintf("w%d,", i)
		at := strings.Index(rest, line)
		require.GreaterOrEqual(t, at, 0, "writer piece %d of %d is lost", i, n)
		rest = rest[at+len(line):]
	}
}
