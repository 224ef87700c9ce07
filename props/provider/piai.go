package provider

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/frameproof/frameproof/props/peer"
)

// DriverFile is pi-ai's provider driver inside the peer directory.
const DriverFile = "providers-driver.mjs"

// StartPiAI starts pi-ai 1.0.3's own providers behind the external adapter
// protocol. It returns an error wrapping peer.ErrUnavailable when node or the
// pinned node_modules is missing.
func StartPiAI(maxStreams int, lifetime time.Duration) (*ExecSubject, error) {
	return StartPiAIContext(context.Background(), maxStreams, lifetime)
}

// StartPiAIContext is StartPiAI with the driver's process group killed
// when ctx is done (an interrupt), the hello wait included.
func StartPiAIContext(ctx context.Context, maxStreams int, lifetime time.Duration) (*ExecSubject, error) {
	dir, err := peer.Dir()
	if err != nil {
		return nil, err
	}
	node, err := exec.LookPath("node")
	if err != nil {
		return nil, fmt.Errorf("%w: node not on PATH", peer.ErrUnavailable)
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@earendil-works", "pi-ai", "package.json")); err != nil {
		return nil, fmt.Errorf("%w: %v", peer.ErrUnavailable, err)
	}
	return StartExecContext(ctx, []string{node, DriverFile}, dir, maxStreams, lifetime)
}
