package provider

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/frameproof/frameproof/props/peer"
	"github.com/stretchr/testify/require"
)

func corpusEntries(t *testing.T) []string {
	t.Helper()
	dir, err := peer.Dir() // corpus/peers/pi-ai; corpus/sse is its sibling's sibling
	require.NoError(t, err)
	paths, err := filepath.Glob(filepath.Join(dir, "..", "..", "sse", "*.json"))
	require.NoError(t, err)
	return paths
}

// Every corpus/sse transcript replays: the Go reference adapter keeps the
// whole contract on it, and the subject that failed (pi-ai) still breaks
// exactly the recorded rules — so a fixed pi-ai shows up as a changed test.
func TestCorpusReplays(t *testing.T) {
	paths := corpusEntries(t)
	var pi *ExecSubject
	_, err := peer.Ensure(peer.PiAI)
	if err == nil {
		pi, err = StartPiAI(4*len(paths)+10, 10*time.Minute)
	}
	unavailable := err
	if errors.Is(err, peer.ErrUnavailable) && os.Getenv(peer.RequireEnv) != "1" {
		pi = nil
	} else {
		require.NoError(t, err)
		defer pi.Close()
	}
	for _, path := range paths {
		e, err := ReadCorpusEntry(path)
		require.NoError(t, err)
		t.Run(filepath.Base(path), func(t *testing.T) {
			res, err := RunRendered(GoSubject{}, e.Scenario, e.Rendered())
			require.NoError(t, err)
			require.Empty(t, res.Violations, "Go adapter on %s", path)
			if e.Subject != "exec:pi-ai@1.0.3" {
				return
			}
			if pi == nil {
				t.Skipf("%v (set %s=1 to fail instead)", unavailable, peer.RequireEnv)
			}
			res, err = RunRendered(pi, e.Scenario, e.Rendered())
			require.NoError(t, err)
			require.Equal(t, e.Rules, ruleNames(res.Violations), "pi-ai on %s (reproduce: %s)", path, e.Reproduce)
		})
	}
}

func ruleNames(vs []Violation) []string {
	seen := map[string]bool{}
	var out []string
	for _, r := range Rules {
		for _, v := range vs {
			if v.Rule == r && !seen[r] {
				seen[r] = true
				out = append(out, r)
			}
		}
	}
	return sortedCopy(out)
}

func sortedCopy(s []string) []string {
	out := append([]string(nil), s...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}

// A corpus entry with the wrong schema is rejected by name.
func TestCorpusEntryRejectsWrongSchema(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.json")
	require.NoError(t, os.WriteFile(path, []byte(`{"schema":"other/9"}`), 0o644))
	_, err := ReadCorpusEntry(path)
	require.ErrorContains(t, err, `schema "other/9"`)
}

// Shrinking keeps the failure and reaches a small scenario.
func TestShrinkKeepsFailure(t *testing.T) {
	for seed := 0; seed < 500; seed++ {
		sc := GenScenario("anthropic-messages").Example(seed)
		res, err := RunScenario(GoSubject{Bug: 3}, sc) // BugRestartToolCall
		require.NoError(t, err)
		if !res.Failed() {
			continue
		}
		shrunk := Shrink(sc, func(c Scenario) bool {
			r, err := RunScenario(GoSubject{Bug: 3}, c)
			return err == nil && r.Failed()
		})
		r, err := RunScenario(GoSubject{Bug: 3}, shrunk)
		require.NoError(t, err)
		require.True(t, r.Failed())
		require.Len(t, shrunk.Truth.Blocks, 1, "a restarted tool call needs exactly one block")
		return
	}
	t.Fatal("no failing scenario found to shrink")
}
