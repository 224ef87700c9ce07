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

	// unlocked and closed (an open file, even this process's, refuses the
	// write lease the truncation takes): --apply goes through
	require.NoError(t, syscall.Flock(int(f.Fd()), syscall.LOCK_UN))
	require.NoError(t, f.Close())
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

// A writer that opens, appends one line and closes, as pi's
// appendFileSync does, racing --apply on a torn session at a drawn moment:
// its line is never lost. Either --apply cut the tail before the writer's
// open (the line is in the session after the recovery's lines) or it
// refused with nothing changed, the line in the session or the backup.
// (The outside review of issue 29 lost the line in 17 of 100 such runs,
// exit 0: an append between the last size check and the truncation was
// cut. The truncation now runs under a write lease on Linux.)
func TestRecoverApplyRacingAppenderNeverLoses(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh here to run the appender")
	}
	runs := 40
	if testing.Short() {
		runs = 15
	}
	for i := range runs {
		p := copyCorpus(t, "crashed-torn-frame")
		mark := fmt.Sprintf(`{"mark":%d}`, i)
		delay := fmt.Sprintf("0.00%d", i%10) // 0 to 9 ms
		writer := exec.Command("sh", "-c", `sleep "$3"; printf '%s\n' "$2" >> "$1"`, "sh", p, mark, delay)
		require.NoError(t, writer.Start())
		code, _, errs := runRecoverCLI("--apply", p)
		require.NoError(t, writer.Wait())
		session, err := os.ReadFile(p)
		require.NoError(t, err)
		backup, _ := os.ReadFile(p + ".bak")
		switch {
		case bytes.Contains(session, []byte(mark)):
		case code != exitPass && bytes.Contains(backup, []byte(mark)):
		default:
			t.Fatalf("run %d (delay %ss): the appended line is lost (exit %d: %s)", i, delay, code, errs)
		}
	}
}
