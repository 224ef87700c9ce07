package world

import (
	"container/heap"
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
	heap.Push(&w.timers, timer{at: until, seq: a.seq, a: a, gen: a.sleepGen})
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
func (h *timerHeap) Push(x any)   { *h = append(*h, x.(timer)) }
func (h *timerHeap) Pop() any {
	old := *h
	t := old[len(old)-1]
	old[len(old)-1] = timer{}
	*h = old[:len(old)-1]
	return t
}

// nextTimer drops stale entries and reports whether a live timer is pending.
func (w *World) nextTimer() (time.Duration, bool) {
	for len(w.timers) > 0 {
		if t := w.timers[0]; t.live() {
			return t.at, true
		}
		heap.Pop(&w.timers)
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
	woke := w.woke[:0]
	for len(w.timers) > 0 && w.timers[0].at == at {
		t := heap.Pop(&w.timers).(timer)
		if t.live() {
			w.makeRunnable(t.a)
			woke = append(woke, t.a.name())
		}
	}
	w.woke = woke
	// the names are the record's detail through a pointer to the reused
	// slice (a slice itself is boxed at every advance), and none is null,
	// as a nil slice is
	f := trace.F("woke", nil)
	if len(woke) > 0 {
		f = trace.F("woke", &w.woke)
	}
	w.tr.Add(w.step, int64(w.now), "", "", "advance", f)
}
