package peer

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeTools puts a node and an npm on PATH that only count their runs: npm
// ci logs one line per run to its log and makes node_modules, or fails
// with the message in $FAKE_NPM_FAIL.
func fakeTools(t *testing.T) (peerDir, log string) {
	t.Helper()
	bin := t.TempDir()
	log = filepath.Join(t.TempDir(), "npm.log")
	npm := "#!/bin/sh\nif [ -n \"$FAKE_NPM_FAIL\" ]; then echo \"$FAKE_NPM_FAIL\" >&2; exit 1; fi\n" +
		"echo \"$*\" >> " + log + "\n/bin/sleep 0.2\n/bin/mkdir -p node_modules/@scope/dep\necho '{}' > node_modules/@scope/dep/package.json\n"
	require.NoError(t, os.WriteFile(filepath.Join(bin, "npm"), []byte(npm), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(bin, "node"), []byte("#!/bin/sh\n"), 0o755))
	t.Setenv("PATH", bin)
	peerDir = t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(peerDir, "package-lock.json"), []byte(`{"v":1}`), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(peerDir, "package.json"), []byte(`{"dependencies":{"@scope/dep":"1.0.0"}}`), 0o644))
	return peerDir, log
}

func npmRuns(t *testing.T, log string) []string {
	b, err := os.ReadFile(log)
	if os.IsNotExist(err) {
		return nil
	}
	require.NoError(t, err)
	return strings.Split(strings.TrimSpace(string(b)), "\n")
}

// Packages testing in parallel install a peer once: the file lock makes
// the others wait and find the stamp.
func TestEnsureInstallsOnceUnderTheLock(t *testing.T) {
	dir, log := fakeTools(t)
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = ensureIn(dir, "fake")
		}()
	}
	wg.Wait()
	for _, err := range errs {
		require.NoError(t, err)
	}
	runs := npmRuns(t, log)
	require.Len(t, runs, 1, "npm ci ran %d times", len(runs))
	assert.Contains(t, runs[0], "ci --ignore-scripts")

	_, err := ensureIn(dir, "fake")
	require.NoError(t, err)
	require.Len(t, npmRuns(t, log), 1, "an installed peer is used as it is")

	// A changed lockfile (a new pin) installs again.
	require.NoError(t, os.WriteFile(filepath.Join(dir, "package-lock.json"), []byte(`{"v":2}`), 0o644))
	_, err = ensureIn(dir, "fake")
	require.NoError(t, err)
	require.Len(t, npmRuns(t, log), 2)

	// A node_modules emptied since the stamp (a package gone) installs
	// again: the stamp alone is not trusted (the outside review's broken
	// peer failed every pi run instead of reinstalling).
	require.NoError(t, os.RemoveAll(filepath.Join(dir, "node_modules", "@scope")))
	_, err = ensureIn(dir, "fake")
	require.NoError(t, err)
	require.Len(t, npmRuns(t, log), 3)
}

// A failed install and a missing tool are ErrUnavailable, with the reason
// in one line, so Require skips (or fails under FRAMEPROOF_REQUIRE_PEER=1).
func TestEnsureUnavailable(t *testing.T) {
	dir, _ := fakeTools(t)
	t.Setenv("FAKE_NPM_FAIL", "npm error network unreachable")
	_, err := ensureIn(dir, "fake")
	require.ErrorIs(t, err, ErrUnavailable)
	assert.Contains(t, err.Error(), "network unreachable")

	require.NoError(t, os.Remove(filepath.Join(os.Getenv("PATH"), "npm")))
	_, err = ensureIn(dir, "fake")
	require.ErrorIs(t, err, ErrUnavailable)
	assert.Contains(t, err.Error(), "npm not found on PATH")
	assert.NotContains(t, err.Error(), "\n")
}

// Every pinned peer is a folder with a package.json and the lockfile npm
// ci installs from, and every folder under corpus/peers is a pinned peer.
func TestEveryPeerIsPinned(t *testing.T) {
	var dirs []string
	for _, name := range Names {
		dir, err := DirOf(name)
		require.NoError(t, err)
		for _, f := range []string{"package.json", "package-lock.json"} {
			_, err := os.Stat(filepath.Join(dir, f))
			require.NoError(t, err, "%s: %s", name, f)
		}
		dirs = append(dirs, filepath.Base(dir))
	}
	root, err := DirOf(PiAgentCore)
	require.NoError(t, err)
	entries, err := os.ReadDir(filepath.Dir(root))
	require.NoError(t, err)
	var found []string
	for _, e := range entries {
		if e.IsDir() {
			found = append(found, e.Name())
		}
	}
	assert.ElementsMatch(t, dirs, found)
}
