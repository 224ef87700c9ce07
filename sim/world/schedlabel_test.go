package world

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/frameproof/frameproof/sim/choice"
)

// schedSpy passes decisions to a recording source and remembers, for every
// scheduling draw, its range and the name the world gave its pick.
type schedSpy struct {
	*choice.Seeded
	draws []schedDraw
}

type schedDraw struct {
	n    int
	name string
}

func (s *schedSpy) Intn(label string, n int) int {
	if label == "sched" {
		s.draws = append(s.draws, schedDraw{n: n})
	}
	return s.Seeded.Intn(label, n)
}

func (s *schedSpy) NameLast(label string) {
	s.draws[len(s.draws)-1].name = label
	s.Seeded.NameLast(label)
}

// Every recorded scheduling choice names what it picked: the actor whose
// records open that step of the trace, or the clock advance.
func TestSchedChoicesNameTheirPick(t *testing.T) {
	for seed := range uint64(5) {
		spy := &schedSpy{Seeded: choice.NewSeeded(seed)}
		w, _ := runWorkload(t, spy)
		recs, err := w.Trace().Records()
		require.NoError(t, err)
		first := map[int64]string{}
		for _, r := range recs {
			if _, ok := first[r.Step]; ok || r.Step == 0 {
				continue
			}
			first[r.Step] = "sched " + r.Actor
			if r.Act == "advance" {
				first[r.Step] = "sched " + SchedClock
			}
		}
		clock, named := 0, 0
		for i, d := range spy.draws {
			step := int64(i + 1)
			if d.n < 2 {
				require.Empty(t, d.name, "seed %d step %d: a draw over one option records nothing to name", seed, step)
				continue
			}
			require.Equal(t, first[step], d.name, "seed %d step %d", seed, step)
			named++
			if d.name == "sched "+SchedClock {
				clock++
			}
		}
		require.Positive(t, named, "seed %d drew no scheduling choice", seed)
		require.Positive(t, clock, "seed %d never chose the clock", seed)
		for _, c := range spy.Tape() {
			require.NotEqual(t, "sched", c.Label, "seed %d: a scheduling choice left unnamed", seed)
		}
	}
}

// A tape recorded before scheduling choices were named (bare "sched")
// replays the same run, and the replay names them.
func TestUnnamedSchedTapeReplays(t *testing.T) {
	src := choice.NewSeeded(77)
	a, _ := runWorkload(t, src)
	tape := src.Tape()
	old := tape.Clone()
	for i := range old {
		if strings.HasPrefix(old[i].Label, "sched ") {
			old[i].Label = "sched"
		}
	}
	r := choice.NewReplay(old)
	b, _ := runWorkload(t, r)
	require.Equal(t, a.Trace().Hash(), b.Trace().Hash())
	require.Equal(t, tape, r.Used())
}
