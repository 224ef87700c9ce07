package campaign

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/frameproof/frameproof/sim/choice"
	"github.com/frameproof/frameproof/sim/trace"
	"github.com/frameproof/frameproof/sim/world"
)

// lostUpdate is a scenario with a real race: two actors do a read-yield-
// write increment of a shared counter; some schedules lose an update.
func lostUpdate(src choice.Source) Result {
	w := world.New(src, world.Options{})
	counter := 0
	err := w.Run(func() {
		for i := range 2 {
			w.Go(fmt.Sprintf("inc%d", i), func() {
				v := counter
				w.Yield()
				counter = v + 1
			})
		}
	})
	r := Result{TraceHash: w.Trace().Hash(), Steps: w.Step()}
	switch {
	case err != nil:
		r.Failed, r.Kind, r.Message = true, KindWorld, err.Error()
	case counter != 2:
		r.Failed, r.Kind, r.Message = true, KindInvariant, fmt.Sprintf("counter = %d, want 2", counter)
	}
	return r
}

func TestCampaignFindsShrinksAndReproduces(t *testing.T) {
	c := Campaign{Scenario: "lost-update", Backend: "memory", Bug: "racy-inc", Run: lostUpdate, BaseSeed: 100, Seeds: 40}
	sum, err := c.Execute()
	require.NoError(t, err)
	require.Equal(t, 40, sum.Runs)
	require.False(t, sum.OK())
	require.Equal(t, sum.Runs, sum.Passed+len(sum.Failures))
	require.Positive(t, sum.Passed, "some schedule must pass")
	for _, f := range sum.Failures {
		require.Equal(t, KindInvariant, f.Kind)
		require.Equal(t, []string{f.TraceHash, f.TraceHash}, f.RerunHashes)
		require.Equal(t, fmt.Sprintf("frameproof repro %d --scenario lost-update --backend memory --bug racy-inc", f.Seed), f.Repro)
		require.LessOrEqual(t, f.ShrunkTapeLen, f.TapeLen)
		// The shrunk tape still fails the same way, and the seed alone
		// reproduces the original failure.
		replay := choice.NewReplay(f.ShrunkTape)
		require.True(t, lostUpdate(replay).Failed)
		// and it reads as that replay: each choice has its draw's label
		require.Equal(t, replay.Relabelled(), f.ShrunkTape, "seed %d", f.Seed)
		again := lostUpdate(choice.NewSeeded(f.Seed))
		require.Equal(t, f.TraceHash, again.TraceHash)
		require.Equal(t, "counter = 1, want 2", f.ShrunkMessage)
	}
	b, err := json.Marshal(sum)
	require.NoError(t, err)
	require.Contains(t, string(b), `"repro":"frameproof repro`)
}

func TestShrunkTapeIsMinimal(t *testing.T) {
	// The lost update needs: main spawns both (no choice), then a schedule
	// where both read before either writes. The minimal tape is short.
	sum, err := Campaign{Run: lostUpdate, Seeds: 40}.Execute()
	require.NoError(t, err)
	require.NotEmpty(t, sum.Failures)
	for _, f := range sum.Failures {
		require.LessOrEqual(t, f.ShrunkTapeLen, 2, "seed %d shrunk to %v", f.Seed, f.ShrunkTape)
	}
}

func TestNondeterministicScenarioIsCaught(t *testing.T) {
	// Mutation test of the self-check: a scenario that leaks state between
	// runs (a global counter in its trace) fails as nondeterminism.
	calls := 0
	leaky := func(src choice.Source) Result {
		calls++
		w := world.New(src, world.Options{})
		_ = w.Run(func() { w.Note("call", trace.F("n", calls)) })
		return Result{Failed: true, Kind: KindInvariant, Message: "always fails", TraceHash: w.Trace().Hash()}
	}
	sum, err := Campaign{Run: leaky, Seeds: 1}.Execute()
	require.NoError(t, err)
	require.Len(t, sum.Failures, 1)
	require.Equal(t, KindNondeterminism, sum.Failures[0].Kind)
	require.Contains(t, sum.Failures[0].Message, "is not deterministic")
}

func TestReplayThatDiffersFromTheSeedIsCaught(t *testing.T) {
	// Mutation test of the replay self-check: a scenario that fails only
	// when driven by the seeded PRNG (its replay of the same decisions
	// passes) cannot be reproduced from a tape.
	onlySeeded := func(src choice.Source) Result {
		w := world.New(src, world.Options{})
		_ = w.Run(func() { w.Intn("x", 4) })
		_, seeded := src.(*choice.Seeded)
		return Result{Failed: seeded, Kind: KindInvariant, Message: "seeded", TraceHash: w.Trace().Hash()}
	}
	sum, err := Campaign{Run: onlySeeded, Seeds: 1, ShrinkAttempts: 5}.Execute()
	require.NoError(t, err)
	require.Len(t, sum.Failures, 1)
	require.Equal(t, KindNondeterminism, sum.Failures[0].Kind)
	require.Contains(t, sum.Failures[0].Message, "replayed to a pass")
}

func TestShardsPartitionTheSeeds(t *testing.T) {
	var all []uint64
	for i := range 3 {
		var mine []uint64
		c := Campaign{Run: func(choice.Source) Result { return Result{} }, BaseSeed: 10, Seeds: 10, Shard: i, Shards: 3,
			OnRun: func(seed uint64, _ Result) { mine = append(mine, seed) }}
		sum, err := c.Execute()
		require.NoError(t, err)
		require.Equal(t, len(mine), sum.Planned)
		require.Equal(t, fmt.Sprintf("%d/3", i), sum.Shard)
		all = append(all, mine...)
	}
	require.ElementsMatch(t, []uint64{10, 11, 12, 13, 14, 15, 16, 17, 18, 19}, all)
}

func TestBudgetsStopEarly(t *testing.T) {
	run := func(choice.Source) Result { return Result{Steps: 10} }
	sum, err := Campaign{Run: run, Seeds: 100, MaxSteps: 35}.Execute()
	require.NoError(t, err)
	require.Equal(t, 4, sum.Runs)
	require.Equal(t, "steps", sum.StoppedBy)

	failing := func(choice.Source) Result { return Result{Failed: true, Kind: "x"} }
	sum, err = Campaign{Run: failing, Seeds: 100, MaxFailures: 2, NoShrink: true}.Execute()
	require.NoError(t, err)
	require.Equal(t, 2, sum.Runs)
	require.Equal(t, "failures", sum.StoppedBy)
}

func TestBadConfigurationIsAnError(t *testing.T) {
	_, err := Campaign{Seeds: 1}.Execute()
	require.ErrorContains(t, err, "no scenario")
	ok := func(choice.Source) Result { return Result{} }
	_, err = Campaign{Run: ok}.Execute()
	require.ErrorContains(t, err, "seeds must be positive")
	_, err = Campaign{Run: ok, Seeds: 1, Shard: 2, Shards: 2}.Execute()
	require.ErrorContains(t, err, "shard 2/2 out of range")
}

func TestParseShard(t *testing.T) {
	i, n, err := ParseShard("1/4")
	require.NoError(t, err)
	require.Equal(t, [2]int{1, 4}, [2]int{i, n})
	for _, bad := range []string{"", "4/4", "-1/2", "a/b", "1", "0/0"} {
		_, _, err := ParseShard(bad)
		require.Error(t, err, bad)
	}
	require.Equal(t, "frameproof repro 7", Repro(7, "", "", ""))
	require.Equal(t, "frameproof repro 7 --scenario s --backend jsonl --bug a,b", Repro(7, "s", "jsonl", "a,b"))
	require.Equal(t, "frameproof repro --tape t.json --scenario s --backend sqlite", ReproTape("t.json", "s", "sqlite", ""))
}

// For any seed count, base and shard count, the shards together run every
// seed of [BaseSeed, BaseSeed+Seeds) exactly once, and each shard's
// Planned is what it runs.
func TestShardsPartitionTheSeedsProperty(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		seeds := rapid.IntRange(1, 60).Draw(rt, "seeds")
		shards := rapid.IntRange(1, 9).Draw(rt, "shards")
		base := rapid.Uint64Range(0, 1<<40).Draw(rt, "base")
		count := map[uint64]int{}
		for i := range shards {
			runs := 0
			c := Campaign{Run: func(choice.Source) Result { return Result{} }, BaseSeed: base, Seeds: seeds,
				Shard: i, Shards: shards, OnRun: func(seed uint64, _ Result) { count[seed]++; runs++ }}
			sum, err := c.Execute()
			if err != nil {
				rt.Fatal(err)
			}
			if sum.Planned != runs || sum.Runs != runs {
				rt.Fatalf("shard %d/%d: planned %d, ran %d (summary %d)", i, shards, sum.Planned, runs, sum.Runs)
			}
		}
		if len(count) != seeds {
			rt.Fatalf("%d distinct seeds ran, want %d", len(count), seeds)
		}
		for s := base; s < base+uint64(seeds); s++ {
			if count[s] != 1 {
				rt.Fatalf("seed %d ran %d times", s, count[s])
			}
		}
	})
}

// Shrinking keeps the failure kind: a scenario whose simplest tapes fail
// with a different kind ("setup") must not shrink its "invariant" failure
// into one of them.
func TestShrinkKeepsTheFailureKind(t *testing.T) {
	scenario := func(src choice.Source) Result {
		big := false
		for range 30 {
			if src.Intn("v", 10) >= 8 {
				big = true
			}
		}
		switch {
		case big:
			return Result{Failed: true, Kind: KindInvariant, Message: "a value >= 8"}
		default:
			return Result{Failed: true, Kind: KindSetup, Message: "no big value"}
		}
	}
	sum, err := Campaign{Run: scenario, Seeds: 5}.Execute()
	require.NoError(t, err)
	require.Len(t, sum.Failures, 5)
	for _, f := range sum.Failures {
		got := scenario(choice.NewReplay(f.ShrunkTape))
		require.Equal(t, f.Kind, got.Kind, "seed %d shrunk to %v", f.Seed, f.ShrunkTape.Values())
		require.Equal(t, got.Message, f.ShrunkMessage)
		if f.Kind == KindInvariant {
			require.Equal(t, 8, f.ShrunkTape[len(f.ShrunkTape)-1].V, "minimal: zeros up to one value of exactly 8")
		}
	}
}

// Stop ends a campaign before its next seed.
func TestStopEndsTheCampaign(t *testing.T) {
	runs := 0
	c := Campaign{Scenario: "s", Seeds: 100, Run: func(choice.Source) Result { runs++; return Result{TraceHash: "h"} },
		Stop: func() bool { return runs >= 7 }}
	sum, err := c.Execute()
	if err != nil {
		t.Fatal(err)
	}
	if sum.Runs != 7 || sum.StoppedBy != "interrupted" || sum.Planned != 100 {
		t.Fatalf("runs %d, stoppedBy %q, planned %d; want 7, interrupted, 100", sum.Runs, sum.StoppedBy, sum.Planned)
	}
}

// Execute counts crashes and distinct crash images over the seeds' first
// runs: each seed crashes twice, into images seed%3 and 100.
func TestCrashImagesAreCountedOnce(t *testing.T) {
	c := Campaign{Seeds: 6, Run: func(src choice.Source) Result {
		s := src.(*choice.Seeded).Seed()
		return Result{TraceHash: "h", CrashImages: []uint64{s % 3, 100}}
	}}
	sum, err := c.Execute()
	require.NoError(t, err)
	require.Equal(t, 12, sum.Crashes)
	require.Equal(t, 4, sum.DistinctCrashImages)
}

// A shrunk tape is cut from the seed's tape, so its recorded labels would
// name the seed's draws; the campaign stores it with the labels of the
// draws its values feed on replay.
func TestShrunkTapeCarriesItsReplayLabels(t *testing.T) {
	sevens := func(src choice.Source) Result {
		for i := range 8 {
			if src.Intn(fmt.Sprintf("draw %d", i), 10) == 7 {
				return Result{Failed: true, Kind: KindInvariant, Message: "a seven"}
			}
		}
		return Result{}
	}
	sum, err := Campaign{Run: sevens, Seeds: 20}.Execute()
	require.NoError(t, err)
	require.NotEmpty(t, sum.Failures)
	for _, f := range sum.Failures {
		require.Equal(t, choice.Tape{{Label: "draw 0", N: 10, V: 7}}, f.ShrunkTape, "seed %d", f.Seed)
	}
}
