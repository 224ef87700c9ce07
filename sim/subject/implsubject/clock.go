package implsubject

import (
	"fmt"
	"slices"
	"time"

	"github.com/frameproof/frameproof/impl/env"
)

// clock is the subject's virtual clock (env.Clock), the counterpart of
// subject-driver.mjs's Date.now and setTimeout: it reads what Open and
// Advance set, and a Sleep is a timer that fires only when Advance reaches
// its due time. Only actors of the world call it, one at a time.
type clock struct {
	s      *Subject
	nowMs  float64
	timers []timer
}

// timer is one pending Sleep: its due time and the future its actor waits on.
type timer struct {
	dueMs float64
	seq   int
	wake  env.Completer
}

var _ env.Clock = (*clock)(nil)

func (c *clock) Now() time.Time { return time.UnixMilli(int64(c.nowMs)) }

// Sleep parks the calling actor until Advance reaches now+d (d <= 0 returns
// at once: the lane never relies on a zero sleep to yield).
func (c *clock) Sleep(d time.Duration) {
	if d <= 0 {
		return
	}
	t := timer{dueMs: c.nowMs + float64(d)/float64(time.Millisecond), seq: len(c.timers), wake: c.s.w.NewFuture("timer")}
	c.timers = append(c.timers, t)
	_ = t.wake.Wait() // a crash of the sleeper's process resolves it
}

// advance sets the clock and fires the due timers, earliest first (the
// driver's fireDueTimers order: due time, then creation).
func (c *clock) advance(nowMs float64) {
	c.nowMs = nowMs
	slices.SortStableFunc(c.timers, func(a, b timer) int {
		switch {
		case a.dueMs < b.dueMs:
			return -1
		case a.dueMs > b.dueMs:
			return 1
		}
		return a.seq - b.seq
	})
	var left []timer
	for _, t := range c.timers {
		if t.dueMs <= nowMs {
			t.wake.Resolve(nil)
		} else {
			left = append(left, t)
		}
	}
	c.timers = left
}

// due lists the pending timers' due times, ascending (Obs.Timers).
func (c *clock) due() []float64 {
	out := []float64{}
	for _, t := range c.timers {
		out = append(out, t.dueMs)
	}
	slices.Sort(out)
	return out
}

// ids mints the driver's ids: UUIDv7-shaped, with the clock's millisecond,
// the process number and a per-process counter, so no two processes mint
// the same id and the same inputs mint the same ids.
type ids struct {
	c       *clock
	process int
	n       int
}

var _ env.IDs = (*ids)(nil)

func (g *ids) NewID() string {
	g.n++
	ts := uint64(max(0, g.c.nowMs))
	t := fmt.Sprintf("%012x", ts&(1<<48-1))
	return fmt.Sprintf("%s-%s-7%03x-8%03x-%012x", t[:8], t[8:12], g.process&0xfff, (g.n>>16)&0xfff, g.n&(1<<48-1))
}
