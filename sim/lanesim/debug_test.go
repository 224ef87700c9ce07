package lanesim

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/frameproof/frameproof/sim/choice"
)

// debugSpec is LANESIM_DEBUG=scenario/backend/seed[/bug,bug].
type debugSpec struct {
	scenario Scenario
	backend  string
	seed     uint64
	bugs     []string
}

func parseDebugSpec(spec string) (debugSpec, error) {
	parts := strings.Split(spec, "/")
	if len(parts) < 3 || len(parts) > 4 {
		return debugSpec{}, fmt.Errorf("LANESIM_DEBUG %q: want scenario/backend/seed[/bugs]", spec)
	}
	sc, ok := ScenarioByName(parts[0])
	if !ok {
		return debugSpec{}, fmt.Errorf("LANESIM_DEBUG %q: unknown scenario %q", spec, parts[0])
	}
	known := false
	for _, be := range Backends() {
		known = known || be == parts[1]
	}
	if !known {
		return debugSpec{}, fmt.Errorf("LANESIM_DEBUG %q: unknown backend %q", spec, parts[1])
	}
	seed, err := strconv.ParseUint(parts[2], 10, 64)
	if err != nil {
		return debugSpec{}, fmt.Errorf("LANESIM_DEBUG %q: seed: %w", spec, err)
	}
	d := debugSpec{scenario: sc, backend: parts[1], seed: seed}
	if len(parts) == 4 {
		d.bugs = strings.Split(parts[3], ",")
	}
	return d, nil
}

// TestDebugSeed replays LANESIM_DEBUG=scenario/backend/seed[/bugs] with its
// trace, and fails when the replayed run fails (a reproduction should show
// FAIL, not a log line under PASS).
func TestDebugSeed(t *testing.T) {
	spec := os.Getenv("LANESIM_DEBUG")
	if spec == "" {
		t.Skip("set LANESIM_DEBUG=scenario/backend/seed")
	}
	d, err := parseDebugSpec(spec)
	require.NoError(t, err)
	out := d.scenario.Run(choice.NewSeeded(d.seed), Options{Backend: d.backend, TempDir: t.TempDir(), KeepTrace: true, Bugs: d.bugs})
	var buf bytes.Buffer
	require.NoError(t, out.Trace.WriteJSONL(&buf))
	t.Logf("%s\nraces %v faults %v", buf.String(), out.RaceOrders, out.Faults)
	require.False(t, out.Failed, "%s: %s", out.Kind, out.Message)
}

// The debug hook's parser rejects what it cannot replay (an unknown bug name
// is left to the run, which fails with kind "setup").
func TestDebugSpec(t *testing.T) {
	for _, bad := range []string{"", "mix", "mix/memory", "nope/memory/1", "mix/tape/1", "mix/memory/x", "mix/memory/1/a/b"} {
		_, err := parseDebugSpec(bad)
		require.Error(t, err, bad)
	}
	d, err := parseDebugSpec("append-vs-settlement/memory/3/skip-drain")
	require.NoError(t, err)
	require.Equal(t, "append-vs-settlement", d.scenario.Name)
	require.Equal(t, uint64(3), d.seed)
	require.Equal(t, []string{"skip-drain"}, d.bugs)
}
