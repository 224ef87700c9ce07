// Package envtest is the one set of deterministic fakes for impl/env's
// Clock and IDs that tests share, instead of each package hand-rolling its
// own. Both are safe for concurrent use.
package envtest

import (
	"fmt"
	"sync"
	"time"
)

// Epoch is the instant the clocks start at by default (2023-11-14, a
// millisecond count with 13 digits like every real timestamp).
const Epoch int64 = 1_700_000_000_000

// Clock is a fake env.Clock in Unix milliseconds. Sleep advances it by the
// duration and never blocks. A manual clock (NewClock) reads the same
// instant until something sleeps; a ticking clock (NewTickClock) moves one
// millisecond forward on every Now, so consecutive readings differ.
type Clock struct {
	mu   sync.Mutex
	ms   int64
	tick bool
}

// NewClock returns a manual clock at ms.
func NewClock(ms int64) *Clock { return &Clock{ms: ms} }

// NewTickClock returns a clock at ms that advances 1 ms per reading.
func NewTickClock(ms int64) *Clock { return &Clock{ms: ms, tick: true} }

// Now returns the clock's instant (after the tick, for a ticking clock).
func (c *Clock) Now() time.Time { return time.UnixMilli(c.read()) }

// NowMs is Now as Unix milliseconds (the unit of pi's timestamps).
func (c *Clock) NowMs() float64 { return float64(c.read()) }

func (c *Clock) read() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.tick {
		c.ms++
	}
	return c.ms
}

// Sleep advances the clock by d (whole milliseconds) without blocking.
func (c *Clock) Sleep(d time.Duration) {
	c.mu.Lock()
	c.ms += d.Milliseconds()
	c.mu.Unlock()
}

// IDs mints sequential ids shaped like UUIDv7
// (0190a000-0000-7000-8000-000000000001, ...), so they sort in mint order.
type IDs struct {
	mu sync.Mutex
	n  int
}

// IDsAfter returns ids that continue after the n-th (a restarted process
// must not mint ids the previous one used).
func IDsAfter(n int) *IDs { return &IDs{n: n} }

// NewID returns the next id.
func (g *IDs) NewID() string {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.n++
	return fmt.Sprintf("0190a000-0000-7000-8000-%012d", g.n)
}
