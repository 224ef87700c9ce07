//go:build !frameproofbugs

package implsubject

import (
	"errors"

	"github.com/frameproof/frameproof/impl/lane"
)

// withLaneBugs refuses bugs: this build has no switches (-tags
// frameproofbugs has them).
func withLaneBugs(cfg lane.Config, names []string) (lane.Config, error) {
	if len(names) > 0 {
		return cfg, errors.New("implsubject: impl/lane bug switches need -tags frameproofbugs")
	}
	return cfg, nil
}
