package lanesim

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/frameproof/frameproof/sim/choice"
)

// TestDebugSeed replays LANESIM_DEBUG=scenario/backend/seed with its trace.
func TestDebugSeed(t *testing.T) {
	spec := os.Getenv("LANESIM_DEBUG")
	if spec == "" {
		t.Skip("set LANESIM_DEBUG=scenario/backend/seed")
	}
	parts := strings.Split(spec, "/")
	sc, _ := ScenarioByName(parts[0])
	seed, _ := strconv.ParseUint(parts[2], 10, 64)
	var bugs []string
	if len(parts) > 3 {
		bugs = strings.Split(parts[3], ",")
	}
	out := sc.Run(choice.NewSeeded(seed), Options{Backend: parts[1], TempDir: t.TempDir(), KeepTrace: true, Bugs: bugs})
	var buf bytes.Buffer
	_ = out.Trace.WriteJSONL(&buf)
	lines := strings.Split(buf.String(), "\n")
	n := 100000
	if len(lines) < n {
		n = len(lines)
	}
	t.Logf("%s\n%s: %s\nraces %v faults %v", strings.Join(lines[len(lines)-n:], "\n"), out.Kind, out.Message, out.RaceOrders, out.Faults)
}
