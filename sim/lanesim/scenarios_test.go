package lanesim

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/anishathalye/porcupine"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/frameproof/frameproof/impl/store/backends"
	"github.com/frameproof/frameproof/sim/campaign"
	"github.com/frameproof/frameproof/sim/choice"
	"github.com/frameproof/frameproof/sim/linz"
)

// ownIO reports whether a backend does its own file I/O (sqlite): its
// simulation runs SQLite in memory, still the slowest, so tests give it
// fewer seeds.
func ownIO(b backends.Backend) bool { return b.Durable && !b.EnvFS }

// seedsFor is how many seeds a backend runs per scenario: fewer for the
// slow one, never none.
func seedsFor(b backends.Backend) int {
	full, short := 30, 8
	if ownIO(b) {
		full, short = 8, 2
	}
	if testing.Short() {
		return short
	}
	return full
}

// Every scenario passes a batch of seeds on every backend of the registry.
func TestScenariosPassOnEveryBackend(t *testing.T) {
	for _, sc := range Scenarios() {
		for _, b := range backends.All() {
			be := b.Name
			require.Positive(t, seedsFor(b), be)
			t.Run(sc.Name+"/"+be, func(t *testing.T) {
				for seed := uint64(0); seed < uint64(seedsFor(b)); seed++ {
					out := sc.Run(choice.NewSeeded(seed), Options{Backend: be, TempDir: t.TempDir()})
					require.False(t, out.Failed, "seed %d: %s: %s\nrepro: %s", seed, out.Kind, out.Message, campaign.Repro(seed, sc.Name, be, ""))
					require.Positive(t, out.Checks, "seed %d ran no checks", seed)
					require.NotEmpty(t, out.TraceHash)
				}
			})
		}
	}
}

// The mixed scenario under rapid: every decision is a rapid draw, so a
// failure shrinks with rapid.
func TestMixUnderRapid(t *testing.T) {
	sc, ok := ScenarioByName("mix")
	require.True(t, ok)
	rapid.Check(t, func(rt *rapid.T) {
		be := rapid.SampledFrom(inProcessBackends()).Draw(rt, "backend")
		out := sc.Run(choice.FromRapid(rt), Options{Backend: be, KeepTrace: true})
		if out.Failed {
			var buf bytes.Buffer
			_ = out.Trace.WriteJSONL(&buf)
			lines := strings.Split(buf.String(), "\n")
			if len(lines) > 80 {
				lines = lines[len(lines)-80:]
			}
			rt.Fatalf("%s: %s\ntrace tail:\n%s", out.Kind, out.Message, strings.Join(lines, "\n"))
		}
	})
}

// Same seed → same trace hash (and a different seed → usually another).
func TestDeterminism(t *testing.T) {
	for _, be := range Backends() {
		for _, name := range []string{"mix", "poll-replacement", "storage-fault"} {
			sc, _ := ScenarioByName(name)
			for seed := uint64(0); seed < 5; seed++ {
				a := sc.Run(choice.NewSeeded(seed), Options{Backend: be, TempDir: t.TempDir()})
				b := sc.Run(choice.NewSeeded(seed), Options{Backend: be, TempDir: t.TempDir(), KeepTrace: true})
				require.Equal(t, a.TraceHash, b.TraceHash, "%s/%s seed %d", name, be, seed)
				require.Equal(t, a.Steps, b.Steps)
				require.Equal(t, a.RaceOrders, b.RaceOrders)
				recs, err := b.Trace.Records()
				require.NoError(t, err)
				require.NotEmpty(t, recs)
			}
		}
	}
	sc, _ := ScenarioByName("mix")
	h := map[string]bool{}
	for seed := uint64(0); seed < 5; seed++ {
		h[sc.Run(choice.NewSeeded(seed), Options{}).TraceHash] = true
	}
	require.Greater(t, len(h), 1, "different seeds should explore different schedules")
}

// inProcessBackends are the backends whose simulation runs no SQLite (the
// fast ones, which the property and mutation tests sample).
func inProcessBackends() []string {
	var out []string
	for _, b := range backends.All() {
		if !ownIO(b) {
			out = append(out, b.Name)
		}
	}
	return out
}

// Every backend of the registry has a simulation and the simulator lists
// it: a new backend cannot be left out of campaigns.
func TestEveryBackendIsSimulated(t *testing.T) {
	require.Equal(t, backends.Names(), Backends())
	require.NotEmpty(t, inProcessBackends())
	for _, b := range backends.All() {
		sc, _ := ScenarioByName("append-order")
		out := sc.Run(choice.NewSeeded(1), Options{Backend: b.Name, TempDir: t.TempDir()})
		require.False(t, out.Failed, "%s: %s: %s", b.Name, out.Kind, out.Message)
		require.Positive(t, out.Checks, b.Name)
	}
}

// A replayed tape reproduces the seeded run.
func TestReplayReproducesSeed(t *testing.T) {
	sc, _ := ScenarioByName("mix")
	src := choice.NewSeeded(7)
	a := sc.Run(src, Options{Backend: "jsonl"})
	b := sc.Run(choice.NewReplay(src.Tape()), Options{Backend: "jsonl"})
	require.Equal(t, a.TraceHash, b.TraceHash)
}

func TestUnknownBugAndBackend(t *testing.T) {
	sc, _ := ScenarioByName("mix")
	out := sc.Run(choice.NewSeeded(1), Options{Bugs: []string{"no-such-bug"}})
	require.True(t, out.Failed)
	require.Equal(t, campaign.KindSetup, out.Kind)
	out = sc.Run(choice.NewSeeded(1), Options{Backend: "tape"})
	require.True(t, out.Failed)
	require.Equal(t, campaign.KindSetup, out.Kind)
	require.Len(t, RaceRows(), 10)
	require.Len(t, BugNames(), 18)
}

// Every race row is targeted by at least one scenario, and every row a
// scenario names is a row of the race table. (Row ids are not scenario
// names; the link is each scenario's Rows.)
func TestEveryRaceRowHasAScenario(t *testing.T) {
	require.NoError(t, rowsTargeted(RaceRows(), Scenarios()))
	// The check itself: a table with a row no scenario names, and a
	// scenario naming a row the table lacks, are both rejected.
	scs := Scenarios()
	var without []Scenario
	for _, sc := range scs {
		rows := []string{}
		for _, id := range sc.Rows {
			if id != RowCloseSettle {
				rows = append(rows, id)
			}
		}
		sc.Rows = rows
		without = append(without, sc)
	}
	require.ErrorContains(t, rowsTargeted(RaceRows(), without), RowCloseSettle)
	require.ErrorContains(t, rowsTargeted(RaceRows()[1:], scs), RowAppendNext)
}

func rowsTargeted(table []RaceRow, scs []Scenario) error {
	rows := map[string]bool{}
	for _, r := range table {
		rows[r.ID] = true
	}
	targeted := map[string]bool{}
	for _, sc := range scs {
		for _, id := range sc.Rows {
			if !rows[id] {
				return fmt.Errorf("scenario %s names unknown race row %q", sc.Name, id)
			}
			targeted[id] = true
		}
	}
	for _, r := range table {
		if !targeted[r.ID] {
			return fmt.Errorf("race row %s (%s) has no scenario", r.ID, r.Name)
		}
	}
	return nil
}

// The per-operation porcupine model rejects a broken history: an append
// that commits after the operation was finalized (what a broken fence does).
func TestOpModelRejectsAppendAfterFinalize(t *testing.T) {
	step := int64(0)
	clock := func() int64 { step++; return step }
	good := linz.NewRecorder(clock)
	rec := func(r *linz.Recorder, in linzInput, out linzOutput) {
		id := r.Call("c", in)
		require.NoError(t, r.Return(id, out))
	}
	rec(good, linzInput{Kind: "intent", Op: "o", Resp: "r"}, linzOutput{Result: "ok"})
	rec(good, linzInput{Kind: "append", Op: "o", Resp: "r"}, linzOutput{Result: "committed"})
	rec(good, linzInput{Kind: "finalize", Op: "o"}, linzOutput{Result: "ok"})
	rec(good, linzInput{Kind: "append", Op: "o", Resp: "r"}, linzOutput{Result: "declined"})
	res, _ := good.Check(OpModel(), 0)
	require.Equal(t, porcupine.Ok, res)

	bad := linz.NewRecorder(clock)
	rec(bad, linzInput{Kind: "intent", Op: "o", Resp: "r"}, linzOutput{Result: "ok"})
	rec(bad, linzInput{Kind: "finalize", Op: "o"}, linzOutput{Result: "ok"})
	rec(bad, linzInput{Kind: "append", Op: "o", Resp: "r"}, linzOutput{Result: "committed"})
	res, _ = bad.Check(OpModel(), 0)
	require.Equal(t, porcupine.Illegal, res)

	// a snapshot that counts a frame the history never committed
	bad = linz.NewRecorder(clock)
	rec(bad, linzInput{Kind: "intent", Op: "o", Resp: "r"}, linzOutput{Result: "ok"})
	rec(bad, linzInput{Kind: "snapshot", Op: "o"}, linzOutput{Pending: true, Resp: "r", Frames: 1})
	res, _ = bad.Check(OpModel(), 0)
	require.Equal(t, porcupine.Illegal, res)
}
