//go:build linux

package env

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// A process holding the locked file open, without any lock, is seen; once
// it exits it is not. recover --apply refuses while one is (a writer pi's
// way, appending without a lock, could otherwise append between the last
// size check and the torn tail's truncation).
func TestOpenElsewhereSeesAnotherProcess(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	require.NoError(t, os.WriteFile(path, []byte("{}\n"), 0o644))
	l, err := LockFile(path)
	require.NoError(t, err)
	defer l.Close()
	pids, err := l.OpenElsewhere()
	require.NoError(t, err)
	require.Empty(t, pids, "only this process holds it")

	cmd := exec.Command("sh", "-c", `exec 3>>"$1"; echo ready; read _ || true`, "sh", path)
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	line, err := bufio.NewReader(out).ReadString('\n')
	require.NoError(t, err)
	require.Equal(t, "ready\n", line)
	pids, err = l.OpenElsewhere()
	require.NoError(t, err)
	require.Equal(t, []int{cmd.Process.Pid}, pids)

	require.NoError(t, stdin.Close()) // read returns; the shell exits
	require.NoError(t, cmd.Wait())
	pids, err = l.OpenElsewhere()
	require.NoError(t, err)
	require.Empty(t, pids)
}

// Truncate takes a write lease for its size check and cut: while another
// process has the file open (pi's appender between its open and close),
// it refuses with ErrOpenElsewhere and leaves the file as it was; once the
// other process closed it, the cut goes through.
func TestTruncateRefusesWhileAnotherProcessHasItOpen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	require.NoError(t, os.WriteFile(path, []byte("{}\n{\"torn"), 0o644))
	l, err := LockFile(path)
	require.NoError(t, err)
	defer l.Close()

	cmd := exec.Command("sh", "-c", `exec 3>>"$1"; echo ready; read _ || true`, "sh", path)
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	line, err := bufio.NewReader(out).ReadString('\n')
	require.NoError(t, err)
	require.Equal(t, "ready\n", line)

	err = l.Truncate(9, 3)
	require.ErrorIs(t, err, ErrOpenElsewhere)
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, "{}\n{\"torn", string(b), "nothing cut")

	require.NoError(t, stdin.Close())
	require.NoError(t, cmd.Wait())
	require.NoError(t, l.Truncate(9, 3))
	b, err = os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, "{}\n", string(b))
}
