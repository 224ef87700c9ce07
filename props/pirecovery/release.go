package pirecovery

import (
	"fmt"
	"math"
	"strings"

	"github.com/frameproof/frameproof/impl/pi"
	"github.com/frameproof/frameproof/props/peer"
)

// Release is a published pi-agent-core the sweep runs against: its pinned
// peer folder and the options under which frameproof commits what that
// release commits. Each difference between releases is such an option.
type Release struct {
	Version string
	Peer    peer.Name
	// StoredDelayCap is the maxAgentDelayMs pi writes into every generation
	// context's retry policy when the run's retry option names none:
	// from 0.87.1 on, runtime/drive/boundary.js normalizedRetryPolicy
	// writes pi-ai's DEFAULT_MAX_AGENT_RETRY_DELAY_MS (60000); 0.85.1 writes
	// no cap (nil). impl/lane's reopen takes it as the run's
	// lane.RetryPolicy.MaxAgentDelayMs.
	StoredDelayCap *float64
	// UnsetDelayCap is the cap on a retry delay whose stored policy names
	// none (lane.Config and sessionrecovery.Options DefaultMaxAgentDelayMs):
	// 0.85.1's runtime/drive/retry.js retryDelay has none (+Inf); later
	// releases call pi-ai's retryDelayMs (nil: its 60000).
	UnsetDelayCap *float64
	// ErrorPatterns is the pi-ai the release resolves, whose retry and
	// overflow patterns classify a provider error (lane.Config and
	// sessionrecovery.Options ErrorPatterns).
	ErrorPatterns pi.AIRelease
}

// Releases are the pinned releases, 0.85.1 (the pi tree frameproof
// models, the default) first.
var Releases = []Release{
	{Version: "0.85.1", Peer: peer.PiAgentCore, UnsetDelayCap: ptr(math.Inf(1)), ErrorPatterns: pi.AI0851},
	{Version: "0.87.1", Peer: peer.PiAgentCore0871, StoredDelayCap: ptr(60_000), ErrorPatterns: pi.AI0871},
	{Version: "0.99.1", Peer: peer.PiAgentCore0991, StoredDelayCap: ptr(60_000), ErrorPatterns: pi.AI0991},
}

// DefaultRelease is the release the sweep runs against by default.
const DefaultRelease = "0.85.1"

// ReleaseOf returns the pinned release of version.
func ReleaseOf(version string) (Release, error) {
	var known []string
	for _, r := range Releases {
		if r.Version == version {
			return r, nil
		}
		known = append(known, r.Version)
	}
	return Release{}, fmt.Errorf("pirecovery: pi-agent-core %q is not pinned (pinned: %s)", version, strings.Join(known, ", "))
}

func ptr(x float64) *float64 { return &x }
