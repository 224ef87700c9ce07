package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/anishathalye/porcupine"

	"github.com/frameproof/frameproof/sim/campaign"
	"github.com/frameproof/frameproof/sim/choice"
	"github.com/frameproof/frameproof/sim/linz"
	"github.com/frameproof/frameproof/sim/trace"
)

// fakeSuite is a tiny scenario set with known behaviour, so the commands'
// plumbing (exit codes, coverage, repro, shrink, reports) is tested apart
// from the real simulator.
//
//	coin:  draws 1..20 values in [0,10); race row R1 takes "a-first" or
//	       "b-first" on a fair coin. Bug "big-value" fails (kind
//	       "invariant") when any value is >= 7; bug "flaky" makes the trace
//	       depend on a global counter (nondeterminism).
//	rare:  race row R2 takes order "rare" with probability 1/100000.
type fakeSuite struct{}

var fakeRunCounter atomic.Int64

func (fakeSuite) Scenarios() []campaign.Scenario {
	return []campaign.Scenario{
		{Name: "coin", Description: "fake: values and a fair race", Rows: []string{"R1"}, Run: fakeCoin},
		{Name: "rare", Description: "fake: a race whose second order almost never happens", Rows: []string{"R2"}, Run: fakeRare},
	}
}

func (fakeSuite) RaceRows() []campaign.RaceRow {
	return []campaign.RaceRow{
		{ID: "R1", Name: "fake race one", Orders: [2]string{"a-first", "b-first"}},
		{ID: "R2", Name: "rare race", Orders: [2]string{"common", "rare"}},
	}
}

func (fakeSuite) BugNames() []string         { return []string{"big-value", "flaky"} }
func (fakeSuite) BugsCompiled() bool         { return true }
func (fakeSuite) Backends() []string         { return []string{"memory", "jsonl", "sqlite"} }
func (fakeSuite) LinzModel() porcupine.Model { return fakeCounterModel }

var fakeCounterModel = porcupine.Model{
	Init: func() any { return 0 },
	Step: func(state, input, output any) (bool, any) {
		next := state.(int) + 1
		if linz.IsIndefinite(output) {
			return true, next
		}
		return output.(int) == next, next
	},
	DescribeOperation: func(input, output any) string { return fmt.Sprintf("inc -> %v", output) },
}

func fakeTrace(opts campaign.RunOptions) *trace.Trace {
	if opts.KeepTrace {
		return trace.New()
	}
	return trace.NewHashOnly()
}

func fakeCoin(src choice.Source, opts campaign.RunOptions) campaign.Outcome {
	tr := fakeTrace(opts)
	step := int64(0)
	rec := linz.NewRecorder(func() int64 { return step })
	o := campaign.Outcome{Races: map[string]string{}, Linz: rec}
	if opts.Backend != "memory" {
		// File backends get a directory that exists and starts empty.
		entries, err := os.ReadDir(opts.TempDir)
		if err != nil || len(entries) != 0 {
			o.Failed, o.Kind, o.Message = true, campaign.KindHarness, fmt.Sprintf("temp dir not fresh: %v %d", err, len(entries))
			return o
		}
		_ = os.WriteFile(filepath.Join(opts.TempDir, "store."+opts.Backend), []byte("x"), 0o644)
	}
	if slices.Contains(opts.Bugs, "flaky") {
		tr.Add(0, 0, "", "fake", "counter", trace.F("n", fakeRunCounter.Add(1)))
	}
	n := choice.Range(src, "ops", 1, 20)
	for i := range n {
		step++
		v := src.Intn("value", 10)
		tr.Add(step, 0, "", "fake", "draw", trace.F("v", v))
		id := rec.Call("client", "inc")
		_ = rec.Return(id, i+1)
		if v >= 7 && slices.Contains(opts.Bugs, "big-value") && !o.Failed {
			o.Failed, o.Kind, o.Message = true, campaign.KindInvariant, fmt.Sprintf("value %d >= 7 at op %d", v, i)
			rec.Fault("bug big-value fired", fmt.Sprintf("op %d", i))
			o.Faults = append(o.Faults, fmt.Sprintf("big value %d at op %d", v, i))
		}
	}
	if choice.Bool(src, "race R1") {
		o.Races["R1"] = "b-first"
	} else {
		o.Races["R1"] = "a-first"
	}
	o.Steps, o.TraceHash = int(step), tr.Hash()
	if opts.KeepTrace {
		o.Trace = tr
	}
	return o
}

func fakeRare(src choice.Source, opts campaign.RunOptions) campaign.Outcome {
	tr := fakeTrace(opts)
	o := campaign.Outcome{Races: map[string]string{"R2": "common"}, Steps: 1}
	if choice.Chance(src, "rare", 1, 100000) {
		o.Races["R2"] = "rare"
	}
	tr.Add(1, 0, "", "fake", "race", trace.F("order", o.Races["R2"]))
	o.TraceHash = tr.Hash()
	if opts.KeepTrace {
		o.Trace = tr
	}
	return o
}

// withSuite runs the commands against s for the rest of the test.
func withSuite(t *testing.T, s campaign.Suite) {
	t.Helper()
	old := activeSuite
	activeSuite = s
	t.Cleanup(func() { activeSuite = old })
}
