//go:build !frameproofbugs

package lanesim

import (
	"github.com/frameproof/frameproof/impl/lane"
	"github.com/frameproof/frameproof/impl/store/fork"
	"github.com/frameproof/frameproof/impl/store/jsonl"
)

// BugsCompiled reports whether this build has the bug switches (the
// frameproofbugs tag); without them a run with Options.Bugs fails at setup.
func BugsCompiled() bool { return false }

// withLaneBugs refuses bugs: this build has no switches (splitBugs already
// refused them, so names is empty here).
func withLaneBugs(cfg lane.Config, names []string) (lane.Config, error) {
	if len(names) > 0 {
		return cfg, errBugsNotCompiled
	}
	return cfg, nil
}

// jsonlBugs has no switches to set in this build (see withLaneBugs).
func jsonlBugs([]string) func(jsonl.Options) (jsonl.Options, error) { return nil }

// withForkBugs refuses bugs, as withLaneBugs does.
func withForkBugs(o fork.Options, names []string) (fork.Options, error) {
	if len(names) > 0 {
		return o, errBugsNotCompiled
	}
	return o, nil
}
