package campaign

import (
	"context"
	"math"
	"sync/atomic"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/stretchr/testify/require"

	"github.com/frameproof/frameproof/impl/env/envtest"
	"github.com/frameproof/frameproof/sim/choice"
)

// executeWithin runs c.Execute, failing the test if it does not return
// within a minute. It is a hang detector, not a speed bound: the campaigns
// below run a handful of trivial seeds, and what they guard against is a
// loop over the whole (astronomical) seed range.
func executeWithin(t *testing.T, c Campaign) Summary {
	t.Helper()
	type result struct {
		sum Summary
		err error
	}
	done := make(chan result, 1)
	go func() {
		sum, err := c.Execute()
		done <- result{sum, err}
	}()
	select {
	case r := <-done:
		require.NoError(t, r.err)
		return r.sum
	case <-time.After(time.Minute):
		t.Fatal("Execute did not return: it walks the seed range instead of stopping at its budget")
		return Summary{}
	}
}

// A budget or a stop ends a campaign at once, whatever its seed count:
// --seeds 2^63-1 --budget 5s is the natural "run for five seconds" gate.
// Nothing here is O(seeds): the planned count is computed, not counted,
// and the seed index never overflows (shard 2 of 3 near math.MaxInt).
func TestBudgetsBoundAnEnormousCampaign(t *testing.T) {
	const shard, shards = 2, 3
	wantPlanned := (math.MaxInt-shard)/shards + 1 // indexes 2, 5, ... below MaxInt
	for _, tc := range []struct {
		name, stoppedBy string
		set             func(c *Campaign, runs *int)
		wantRuns        int
	}{
		{"steps", "steps", func(c *Campaign, _ *int) { c.MaxSteps = 10 }, 10},
		{"duration", "duration", func(c *Campaign, _ *int) {
			// One reading at the start, one per seed: the 5th seed's check
			// reads 5 s after the start.
			clock := envtest.NewClock(envtest.Epoch)
			c.Now = func() time.Time { t := clock.Now(); clock.Sleep(time.Second); return t }
			c.MaxDuration = 5 * time.Second
		}, 4},
		{"stop", "interrupted", func(c *Campaign, runs *int) { c.Stop = func() bool { return *runs >= 3 } }, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			runs := 0
			c := Campaign{Scenario: "s", Seeds: math.MaxInt, Shard: shard, Shards: shards,
				Run: func(choice.Source) Result { runs++; return Result{Steps: 1, TraceHash: "h"} }}
			tc.set(&c, &runs)
			sum := executeWithin(t, c)
			require.Equal(t, tc.stoppedBy, sum.StoppedBy)
			require.Equal(t, tc.wantRuns, sum.Runs)
			require.Equal(t, tc.wantRuns, runs)
			require.Equal(t, wantPlanned, sum.Planned)
		})
	}
}

// countingSuite is one scenario that counts its runs and cancels the
// campaign's context after the third.
type countingSuite struct {
	runs   *atomic.Int64
	cancel func()
}

func (s countingSuite) Scenarios() []Scenario {
	return []Scenario{{Name: "count", Run: func(choice.Source, RunOptions) Outcome {
		if s.runs.Add(1) == 3 {
			s.cancel()
		}
		return Outcome{TraceHash: "h", Steps: 1}
	}}}
}
func (countingSuite) RaceRows() []RaceRow        { return nil }
func (countingSuite) BugNames() []string         { return nil }
func (countingSuite) Backends() []string         { return []string{"memory", "jsonl"} }
func (countingSuite) LinzModel() porcupine.Model { return porcupine.Model{} }
func (countingSuite) BugsCompiled() bool         { return true }
func (countingSuite) RunsUseNoDir() bool         { return true }

// A cancelled context (SIGINT, SIGTERM) ends a campaign of 2^63-1 seeds per
// cell before its next seed: the cell in progress stops, the next cell
// never starts, and the report says how many of the planned seeds ran.
func TestCancelledCampaignStopsAtOnce(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var runs atomic.Int64
	s := countingSuite{runs: &runs, cancel: cancel}
	done := make(chan Report, 1)
	go func() {
		rep, err := Run(ctx, Options{Suite: s, Scenarios: s.Scenarios(), Backends: s.Backends(), Seeds: math.MaxInt, Jobs: 1})
		require.NoError(t, err)
		done <- rep
	}()
	var rep Report
	select {
	case rep = <-done:
	case <-time.After(time.Minute): // a hang detector, not a speed bound
		t.Fatal("Run did not return after its context was cancelled")
	}
	require.EqualValues(t, 3, runs.Load())
	require.Len(t, rep.Cells, 2)
	require.Equal(t, 3, rep.Cells[0].Runs)
	require.Equal(t, math.MaxInt, rep.Cells[0].Planned)
	require.Equal(t, "interrupted", rep.Cells[0].StoppedBy)
	require.Equal(t, CellNotRun, rep.Cells[1].Verdict)
	require.Equal(t, 0, rep.Cells[1].Runs)
	require.Equal(t, math.MaxInt, rep.Cells[1].Planned)
	require.Equal(t, "interrupted", rep.Cells[1].StoppedBy)
	require.Equal(t, 3, rep.Throughput.Runs)
}
