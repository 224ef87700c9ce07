package world

import (
	"encoding/binary"
	"time"

	"github.com/frameproof/frameproof/impl/env"
	"github.com/frameproof/frameproof/sim/trace"
)

// Now returns the virtual time: the epoch plus all simulated time advanced.
func (w *World) Now() time.Time { return w.epoch.Add(w.now) }

// Sleep parks the running actor until virtual time has advanced by d (see
// the package doc for when the clock moves). d <= 0 is a Yield. Outside an
// actor it panics with a clear message.
func (w *World) Sleep(d time.Duration) {
	a := w.self("Clock.Sleep")
	if d <= 0 {
		w.makeRunnable(a)
		w.park(a, "yield")
		return
	}
	a.sleepGen++
	a.state = stSleeping
	until := w.now + d
	w.timers.push(timer{at: until, seq: a.seq, a: a, gen: a.sleepGen})
	w.park(a, "sleep", trace.S("d", d.String()), trace.I("until", int64(until)))
}

// NewID returns a deterministic UUIDv7-shaped id: the 48-bit Unix
// millisecond of the virtual clock, version 7, variant 10, and a world-wide
// counter in the 74 "random" bits. Ids are strictly increasing.
func (w *World) NewID() string {
	w.idSeq++
	ms := uint64(w.Now().UnixMilli())
	var b [16]byte
	b[0], b[1], b[2] = byte(ms>>40), byte(ms>>32), byte(ms>>24)
	b[3], b[4], b[5] = byte(ms>>16), byte(ms>>8), byte(ms)
	hiCounter := uint16(w.idSeq>>62) & 0x0fff
	b[6] = 0x70 | byte(hiCounter>>8)
	b[7] = byte(hiCounter)
	binary.BigEndian.PutUint64(b[8:], (w.idSeq&(1<<62-1))|0x8000000000000000)
	return env.FormatUUID(b)
}

// timer is a pending Sleep. Entries of actors that were woken otherwise or
// killed go stale (gen mismatch) and are skipped.
type timer struct {
	at  time.Duration
	seq int64
	a   *actor
	gen uint64
}

func (t timer) live() bool { return t.a.state == stSleeping && t.a.sleepGen == t.gen }

type timerHeap []timer

func (h timerHeap) Len() int { return len(h) }
func (h timerHeap) Less(i, j int) bool {
	if h[i].at != h[j].at {
		return h[i].at < h[j].at
	}
	return h[i].seq < h[j].seq
}
func (h timerHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }

// push and pop are container/heap's Push and Pop, step for step (the same
// order of equal elements), on the timers themselves rather than boxed in
// an interface (an allocation per Sleep and per timer taken).
func (h *timerHeap) push(t timer) {
	*h = append(*h, t)
	h.up(len(*h) - 1)
}

func (h *timerHeap) pop() timer {
	n := len(*h) - 1
	h.Swap(0, n)
	h.down(0, n)
	old := *h
	t := old[n]
	old[n] = timer{}
	*h = old[:n]
	return t
}

func (h timerHeap) up(j int) {
	for {
		i := (j - 1) / 2 // parent
		if i == j || !h.Less(j, i) {
			break
		}
		h.Swap(i, j)
		j = i
	}
}

func (h timerHeap) down(i0, n int) {
	i := i0
	for {
		j1 := 2*i + 1
		if j1 >= n || j1 < 0 { // j1 < 0 after int overflow
			break
		}
		j := j1 // left child
		if j2 := j1 + 1; j2 < n && h.Less(j2, j1) {
			j = j2 // = 2*i + 2  // right child
		}
		if !h.Less(j, i) {
			break
		}
		h.Swap(i, j)
		i = j
	}
}

// nextTimer drops stale entries and reports whether a live timer is pending.
func (w *World) nextTimer() (time.Duration, bool) {
	for len(w.timers) > 0 {
		if t := w.timers[0]; t.live() {
			return t.at, true
		}
		w.timers.pop()
	}
	return 0, false
}

// advance moves the clock to the earliest timer and wakes every actor whose
// timer is due then.
func (w *World) advance() {
	at, ok := w.nextTimer()
	if !ok {
		return
	}
	w.now = at
	// woke reuses the world's buffer: the trace writes it out at once
	woke := w.woke[:0]
	for len(w.timers) > 0 && w.timers[0].at == at {
		t := w.timers.pop()
		if t.live() {
			w.makeRunnable(t.a)
			woke = append(woke, t.a.name)
		}
	}
	if len(woke) == 0 {
		woke = nil // written as null, as before
	}
	w.tr.Add(w.step, int64(w.now), "", "", "advance", trace.F("woke", woke))
	if woke != nil {
		clear(woke)
		w.woke = woke[:0]
	}
}
