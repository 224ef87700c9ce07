package peer

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// RelDir is the peer's directory relative to the module root.
const RelDir = "corpus/peers/pi-ai"

// ErrUnavailable marks a peer that cannot run on this machine (no node on
// PATH, node_modules not installed). Tests skip on it unless
// FRAMEPROOF_REQUIRE_PEER=1. Any other Start failure is a real failure.
var ErrUnavailable = errors.New("peer: unavailable")

// DirEnv overrides Dir, for running the CLI outside the module tree.
const DirEnv = "FRAMEPROOF_PEER_DIR"

// Dir returns the absolute path of corpus/peers/pi-ai, found by walking up
// from the working directory to the directory holding go.mod (or taken from
// FRAMEPROOF_PEER_DIR when set).
func Dir() (string, error) {
	if d := os.Getenv(DirEnv); d != "" {
		abs, err := filepath.Abs(d)
		if err != nil {
			return "", fmt.Errorf("peer: %s=%q: %w", DirEnv, d, err)
		}
		return abs, nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("peer: locate module root: %w", err)
	}
	root, err := moduleRoot(wd)
	if err != nil {
		return "", err
	}
	return filepath.Join(root, filepath.FromSlash(RelDir)), nil
}

// moduleRoot walks up from dir until it finds a go.mod file.
func moduleRoot(dir string) (string, error) {
	for d := dir; ; {
		if info, err := os.Stat(filepath.Join(d, "go.mod")); err == nil && !info.IsDir() {
			return d, nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", fmt.Errorf("peer: locate module root: no go.mod above %s", dir)
		}
		d = parent
	}
}

// checkInstalled reports ErrUnavailable (wrapped with the reason) when node
// or the pinned node_modules is missing, and returns node's path otherwise.
func checkInstalled(dir string) (string, error) {
	node, err := exec.LookPath("node")
	if err != nil {
		return "", fmt.Errorf("%w: pi-ai: node not found on PATH", ErrUnavailable)
	}
	pkg := filepath.Join(dir, "node_modules", "@earendil-works", "pi-ai", "package.json")
	if _, err := os.Stat(pkg); err != nil {
		return "", fmt.Errorf("%w: pi-ai: %s missing (run: npm ci --prefix %s)", ErrUnavailable, pkg, RelDir)
	}
	return node, nil
}
