//go:build frameproofbugs

package lanesim

import (
	"github.com/frameproof/frameproof/impl/lane"
	"github.com/frameproof/frameproof/impl/store/fork"
	"github.com/frameproof/frameproof/impl/store/jsonl"
)

// BugsCompiled reports whether this build has the bug switches (the
// frameproofbugs tag); without them a run with Options.Bugs fails at setup.
func BugsCompiled() bool { return true }

// withLaneBugs switches the named lane bugs on in cfg.
func withLaneBugs(cfg lane.Config, names []string) (lane.Config, error) {
	return lane.WithBugs(cfg, names...)
}

// jsonlBugs is the backends.Options.JSONL hook that switches the named
// JSONL store bugs on (nil: none).
func jsonlBugs(names []string) func(jsonl.Options) (jsonl.Options, error) {
	if len(names) == 0 {
		return nil
	}
	return func(o jsonl.Options) (jsonl.Options, error) { return jsonl.WithBugs(o, names...) }
}

// withForkBugs switches the named fork snapshot bugs on in o.
func withForkBugs(o fork.Options, names []string) (fork.Options, error) {
	return fork.WithBugs(o, names...)
}
