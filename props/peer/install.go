package peer

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/frameproof/frameproof/props/peer/procgroup"
)

// Name is a pinned npm peer: a folder corpus/peers/<Name>/ holding a
// package.json and a package-lock.json that `npm ci` installs.
type Name string

// The pinned peers. Every list of peers derives from Names.
const (
	// PiAI is pi-ai 1.0.3: the frame codec and the providers.
	PiAI Name = "pi-ai"
	// PiAgentCore is pi-agent-core 0.85.1: pi's harness, its session
	// storage and its own test kit, with pi-ai 0.85.1 beside it.
	PiAgentCore Name = "pi-agent-core"
	// PiAgentCore0871 is pi-agent-core 0.87.1 with pi-ai 0.87.1: a later
	// release of pi's harness (retry delays capped by pi-ai's retryDelayMs),
	// for the release gate (frameproof pi-recovery-sweep --pi 0.87.1).
	PiAgentCore0871 Name = "pi-agent-core-0.87.1"
	// PiAgentCore0991 is pi-agent-core 0.99.1 with pi-ai 0.99.1, the last
	// release that ships the harness before 1.0.3 drops dist/harness/.
	PiAgentCore0991 Name = "pi-agent-core-0.99.1"
)

// Names lists every pinned peer.
var Names = []Name{PiAI, PiAgentCore, PiAgentCore0871, PiAgentCore0991}

// installTimeout bounds one `npm ci`; a registry that does not answer makes
// the peer unavailable rather than hanging the test binary.
const installTimeout = 10 * time.Minute

// stampFile, inside node_modules, holds the hash of the lockfile the last
// successful `npm ci` installed: a changed lockfile reinstalls.
const stampFile = ".frameproof-lock-sha256"

// DirOf returns the absolute path of corpus/peers/<name> in the module
// tree holding the working directory. For PiAI, FRAMEPROOF_PEER_DIR
// overrides it (Dir).
func DirOf(name Name) (string, error) {
	if name == PiAI {
		return Dir()
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("peer: locate module root: %w", err)
	}
	root, err := moduleRoot(wd)
	if err != nil {
		return "", err
	}
	return filepath.Join(root, "corpus", "peers", string(name)), nil
}

// Ensure installs the pinned peer on first use and returns its directory.
// It runs `npm ci --ignore-scripts` (which checks every package against the
// lockfile's integrity hashes) under an exclusive file lock, so packages
// testing in parallel install it once per checkout; a node_modules whose
// stamp matches the lockfile is used as it is. Without node or npm on PATH,
// or when the install fails, the error wraps ErrUnavailable and says why in
// one line.
func Ensure(name Name) (string, error) {
	dir, err := DirOf(name)
	if err != nil {
		return "", err
	}
	return ensureIn(dir, name)
}

// ensureIn is Ensure on the peer folder dir.
func ensureIn(dir string, name Name) (string, error) {
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			return "", fmt.Errorf("%w: %s not found on PATH (install Node.js >= 20 and npm to run the %s peer)", ErrUnavailable, tool, name)
		}
	}
	want, err := lockHash(dir)
	if err != nil {
		return "", err
	}
	if installed(dir, want) {
		return dir, nil
	}
	unlock, err := lockDir(dir)
	if err != nil {
		return "", err
	}
	defer unlock()
	if installed(dir, want) { // another package installed it while we waited
		return dir, nil
	}
	if err := npmCI(dir); err != nil {
		return "", fmt.Errorf("%w: %s: %v", ErrUnavailable, name, err)
	}
	stamp := filepath.Join(dir, "node_modules", stampFile)
	if err := os.WriteFile(stamp, []byte(want+"\n"), 0o644); err != nil {
		return "", fmt.Errorf("peer: %s: write %s: %w", name, stamp, err)
	}
	return dir, nil
}

// Require is Ensure for a test: an unavailable peer skips the test with
// its one-line reason, unless FRAMEPROOF_REQUIRE_PEER=1 makes it a failure.
// Any other error fails the test.
func Require(t testing.TB, name Name) string {
	t.Helper()
	dir, err := Ensure(name)
	switch decideOpen(err, os.Getenv(RequireEnv) == "1") {
	case openSkip:
		t.Skipf("%v (set %s=1 to fail instead)", err, RequireEnv)
	case openFail:
		t.Fatalf("%v", err)
	}
	return dir
}

// RequireNode returns node's path for a test that runs node without a peer;
// without node on PATH it skips, unless FRAMEPROOF_REQUIRE_PEER=1.
func RequireNode(t testing.TB) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		err = fmt.Errorf("%w: node not found on PATH (install Node.js >= 20)", ErrUnavailable)
	}
	switch decideOpen(err, os.Getenv(RequireEnv) == "1") {
	case openSkip:
		t.Skipf("%v (set %s=1 to fail instead)", err, RequireEnv)
	case openFail:
		t.Fatalf("%v", err)
	}
	return node
}

// lockHash is the hex SHA-256 of dir's package-lock.json.
func lockHash(dir string) (string, error) {
	b, err := os.ReadFile(filepath.Join(dir, "package-lock.json"))
	if err != nil {
		return "", fmt.Errorf("peer: read lockfile: %w", err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}

// installed reports whether dir's node_modules came from the lockfile
// hashing to want and still holds every package package.json names (a
// stamp alone would trust a node_modules someone emptied since).
func installed(dir, want string) bool {
	b, err := os.ReadFile(filepath.Join(dir, "node_modules", stampFile))
	if err != nil || strings.TrimSpace(string(b)) != want {
		return false
	}
	var pkg struct {
		Dependencies map[string]string `json:"dependencies"`
	}
	b, err = os.ReadFile(filepath.Join(dir, "package.json"))
	if err != nil || json.Unmarshal(b, &pkg) != nil {
		return false
	}
	for name := range pkg.Dependencies {
		if _, err := os.Stat(filepath.Join(dir, "node_modules", filepath.FromSlash(name), "package.json")); err != nil {
			return false
		}
	}
	return true
}

// npmCI runs `npm ci` in dir within installTimeout, in its own process
// group, and returns the tail of its output on failure.
func npmCI(dir string) error {
	ctx, cancel := context.WithTimeout(context.Background(), installTimeout)
	defer cancel()
	cmd := procgroup.CommandContext(ctx, "npm", "ci", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error")
	cmd.Dir = dir
	out := procgroup.NewTail(600)
	cmd.Stdout = out
	cmd.Stderr = out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("npm ci in %s: %v: %s", dir, err, strings.TrimSpace(out.String()))
	}
	return nil
}
