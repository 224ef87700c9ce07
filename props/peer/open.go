package peer

import (
	"errors"
	"os"
	"testing"
)

// RequireEnv is the environment variable that turns an unavailable peer from
// a skip into a failure (CI sets it so differential tests cannot vanish).
const RequireEnv = "FRAMEPROOF_REQUIRE_PEER"

// openAction is what Open does with the outcome of Start.
type openAction int

const (
	openUse  openAction = iota // peer started
	openSkip                   // peer unavailable and not required
	openFail                   // peer required but unavailable, or broken
)

// decideOpen is Open's policy as a pure function: only ErrUnavailable may
// skip, and only when the peer is not required. Any other start failure
// (driver crash, wrong hello, wrong version) always fails.
func decideOpen(startErr error, required bool) openAction {
	switch {
	case startErr == nil:
		return openUse
	case errors.Is(startErr, ErrUnavailable) && !required:
		return openSkip
	default:
		return openFail
	}
}

// Open starts the pi-ai peer for a test, installing it on first use
// (Require), and closes it in t.Cleanup. When the peer is unavailable it
// skips the test, unless FRAMEPROOF_REQUIRE_PEER=1.
func Open(t testing.TB) *Peer {
	t.Helper()
	p, err := StartIn(Require(t, PiAI))
	switch decideOpen(err, os.Getenv(RequireEnv) == "1") {
	case openSkip:
		t.Skipf("%v (set %s=1 to fail instead)", err, RequireEnv)
		return nil
	case openFail:
		t.Fatalf("%v", err)
		return nil
	}
	t.Cleanup(func() {
		if err := p.Close(); err != nil {
			t.Errorf("%v", err)
		}
	})
	return p
}
