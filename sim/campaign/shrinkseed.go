package campaign

import (
	"github.com/frameproof/frameproof/sim/choice"
	"github.com/frameproof/frameproof/sim/shrink"
)

// Shrunk is what ShrinkSeed found for one seed.
type Shrunk struct {
	First Outcome     // the seed's own run
	Tape  choice.Tape // its decisions
	// Shrunk is the smallest tape found that still fails with First.Kind
	// (nil when First passed); Final is its replay, drawn from FinalSource.
	Shrunk      choice.Tape
	Final       Outcome
	FinalSource *choice.Replay
	Stats       shrink.Stats
}

// Reproduced reports whether the shrunk tape replays to the seed's failure
// kind; false after a failing seed means replays are not deterministic (the
// shrinker keeps only failing candidates).
func (s Shrunk) Reproduced() bool { return s.Final.Failed && s.Final.Kind == s.First.Kind }

// ShrinkSeed runs seed of sc and, when it fails, delta-debugs its tape with
// at most attempts replays, keeping candidates that fail with the same
// kind. Every run starts from an empty opts.TempDir.
func ShrinkSeed(sc Scenario, opts RunOptions, seed uint64, attempts int) Shrunk {
	runOn := func(src choice.Source) Outcome {
		if err := FreshDir(opts.TempDir); err != nil {
			return Outcome{Failed: true, Kind: KindHarness, Message: err.Error()}
		}
		return sc.Run(src, opts)
	}
	src := choice.NewSeeded(seed)
	s := Shrunk{First: runOn(src)}
	if !s.First.Failed {
		return s
	}
	s.Tape = src.Tape()
	opts.MaxSteps = ShrinkStepCap(s.First) // for the candidates below
	fails := func(c choice.Tape) bool {
		got := runOn(choice.NewReplay(c))
		return got.Failed && got.Kind == s.First.Kind
	}
	s.Shrunk, s.Stats = shrink.Shrink(s.Tape, fails, shrink.Options{MaxAttempts: attempts})
	s.FinalSource = choice.NewReplay(s.Shrunk)
	s.Final = runOn(s.FinalSource)
	return s
}
