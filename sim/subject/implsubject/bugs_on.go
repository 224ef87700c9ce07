//go:build frameproofbugs

package implsubject

import "github.com/frameproof/frameproof/impl/lane"

// withLaneBugs switches the named impl/lane bugs on in cfg (mutation
// scoring through the boundary; the certified build has no switches).
func withLaneBugs(cfg lane.Config, names []string) (lane.Config, error) {
	return lane.WithBugs(cfg, names...)
}
