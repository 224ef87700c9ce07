package campaign

import (
	"context"
	"os"
	"testing"

	"github.com/anishathalye/porcupine"
	"github.com/stretchr/testify/require"

	"github.com/frameproof/frameproof/sim/choice"
)

// dirSuite is one scenario that reports, per run, whether its TempDir
// exists and is empty; noDir says it uses none (NoDirSuite).
type dirSuite struct {
	noDir bool
	seen  *[]bool // per run: the directory was there, empty
}

func (s dirSuite) Scenarios() []Scenario {
	return []Scenario{{Name: "dir", Run: func(_ choice.Source, o RunOptions) Outcome {
		entries, err := os.ReadDir(o.TempDir)
		*s.seen = append(*s.seen, err == nil && len(entries) == 0)
		if err == nil { // leave something behind for the next run to find
			_ = os.WriteFile(o.TempDir+"/left", nil, 0o644)
		}
		return Outcome{TraceHash: "h", Steps: 1}
	}}}
}
func (dirSuite) RaceRows() []RaceRow        { return nil }
func (dirSuite) BugNames() []string         { return nil }
func (dirSuite) Backends() []string         { return []string{"memory"} }
func (dirSuite) LinzModel() porcupine.Model { return porcupine.Model{} }
func (dirSuite) BugsCompiled() bool         { return true }
func (s dirSuite) RunsUseNoDir() bool       { return s.noDir }

// Runs get a fresh, empty directory each, unless their suite uses none;
// then none is made.
func TestRunsGetAFreshDirUnlessTheSuiteUsesNone(t *testing.T) {
	for _, noDir := range []bool{false, true} {
		var seen []bool
		s := dirSuite{noDir: noDir, seen: &seen}
		_, err := Run(context.Background(), Options{Suite: s, Scenarios: s.Scenarios(), Backends: s.Backends(), Seeds: 3, TempDir: t.TempDir()})
		require.NoError(t, err)
		require.Len(t, seen, 3)
		for i, fresh := range seen {
			require.Equal(t, !noDir, fresh, "noDir %t, run %d", noDir, i)
		}
	}
}
