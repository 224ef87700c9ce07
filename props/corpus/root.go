package corpus

import (
	"fmt"
	"os"
	"path/filepath"
)

// RootEnv overrides Root, for running the CLI outside the module tree.
const RootEnv = "FRAMEPROOF_CORPUS"

// Root returns the corpus directory: $FRAMEPROOF_CORPUS when set, otherwise
// the corpus/ directory next to the go.mod found by walking up from the
// working directory.
func Root() (string, error) {
	if d := os.Getenv(RootEnv); d != "" {
		return filepath.Abs(d)
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("corpus: locate corpus: %w", err)
	}
	for d := wd; ; {
		if info, err := os.Stat(filepath.Join(d, "go.mod")); err == nil && !info.IsDir() {
			return filepath.Join(d, "corpus"), nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", fmt.Errorf("corpus: locate corpus: no go.mod above %s (set %s)", wd, RootEnv)
		}
		d = parent
	}
}

// CodecDir is where codec vectors live under the corpus root.
func CodecDir(root string) string { return filepath.Join(root, "vectors", "codec") }
