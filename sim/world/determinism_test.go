package world

import (
	"bytes"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/frameproof/frameproof/impl/env"
	"github.com/frameproof/frameproof/sim/choice"
	"github.com/frameproof/frameproof/sim/trace"
)

// miniServer is a toy durable service: clients submit requests, a committer
// actor of the server process "fsyncs" (sleeps) and acknowledges them.
type miniServer struct {
	p      *Process
	queue  []env.Completer
	signal env.Completer
}

func (s *miniServer) submit(reply env.Completer) {
	s.queue = append(s.queue, reply)
	if s.signal != nil {
		s.signal.Resolve(nil)
		s.signal = nil
	}
}

func startServer(w *World, p *Process) *miniServer {
	s := &miniServer{p: p}
	p.Go("committer", func() {
		for {
			if len(s.queue) == 0 {
				s.signal = p.NewFuture("signal")
				_ = s.signal.Wait()
				continue
			}
			reply := s.queue[0]
			s.queue = s.queue[1:]
			w.Sleep(time.Duration(1+w.Intn("fsync-ms", 3)) * time.Millisecond)
			w.Note("commit", trace.F("id", w.NewID()))
			reply.Resolve(nil)
		}
	})
	return s
}

// workload: three clients, each needing three acknowledged requests, against
// a server that crashes once at a chosen time and restarts; crash-cut
// requests are retried. Returns the number of crash-cut requests.
func workload(w *World) (retries int, err error) {
	err = w.Run(func() {
		srv := startServer(w, w.NewProcess("server"))
		const clients = 3
		dones := make([]env.Completer, clients)
		for c := range clients {
			dones[c] = w.NewFuture(fmt.Sprintf("client%d-done", c))
			w.Go(fmt.Sprintf("client%d", c), func() {
				for acked := 0; acked < 3; {
					reply := srv.p.NewFuture("reply")
					srv.submit(reply)
					if err := reply.Wait(); err != nil {
						if !errors.Is(err, ErrCrashed) {
							panic(err)
						}
						retries++
						continue
					}
					acked++
					w.Sleep(time.Duration(w.Intn("think-ms", 4)) * time.Millisecond)
				}
				dones[c].Resolve(nil)
			})
		}
		w.Go("crasher", func() {
			w.Sleep(time.Duration(1+w.Intn("crash-at-ms", 8)) * time.Millisecond)
			srv.p.Crash()
			srv = startServer(w, srv.p.Restart())
		})
		for _, d := range dones {
			require.NoError(t0, d.Wait())
		}
		w.Stop() // the committer would wait for work forever
	})
	return retries, err
}

var t0 = &panicT{}

// panicT makes require.* usable inside actors: a failure panics, which the
// world reports as a *PanicError (t.FailNow would Goexit the actor).
type panicT struct{}

func (*panicT) Errorf(format string, args ...any) { panic(fmt.Sprintf(format, args...)) }
func (*panicT) FailNow()                          { panic("FailNow") }

func runWorkload(t *testing.T, src choice.Source) (*World, int) {
	t.Helper()
	w := New(src, Options{})
	retries, err := workload(w)
	require.NoError(t, err)
	return w, retries
}

func TestSameSeedSameTraceBytes(t *testing.T) {
	for seed := range uint64(5) {
		a, ra := runWorkload(t, choice.NewSeeded(seed))
		b, rb := runWorkload(t, choice.NewSeeded(seed))
		require.Equal(t, a.Trace().Hash(), b.Trace().Hash(), "seed %d", seed)
		var ba, bb bytes.Buffer
		require.NoError(t, a.Trace().WriteJSONL(&ba))
		require.NoError(t, b.Trace().WriteJSONL(&bb))
		require.Equal(t, ba.String(), bb.String())
		require.Equal(t, ra, rb)
	}
}

func TestDifferentSeedsDifferentSchedules(t *testing.T) {
	hashes := map[string]bool{}
	crashCut, crashes := 0, 0
	for seed := range uint64(20) {
		w, retries := runWorkload(t, choice.NewSeeded(seed))
		hashes[w.Trace().Hash()] = true
		crashCut += retries
		recs, err := w.Trace().Records()
		require.NoError(t, err)
		if hasAct(recs, "crash") {
			crashes++
		}
	}
	require.Greater(t, len(hashes), 15, "20 seeds gave only %d distinct schedules", len(hashes))
	require.Equal(t, 20, crashes)
	require.Positive(t, crashCut, "no seed cut a request with the crash")
}

func TestReplayOfTapeReproducesTheRun(t *testing.T) {
	src := choice.NewSeeded(77)
	a, _ := runWorkload(t, src)
	r := choice.NewReplay(src.Tape())
	b, _ := runWorkload(t, r)
	require.Equal(t, a.Trace().Hash(), b.Trace().Hash())
	require.Zero(t, r.Overrun())
}

// Under rapid the same workload is a property: every client gets its
// requests acknowledged across the crash, for every schedule rapid tries.
func TestWorkloadUnderRapid(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		w := New(choice.FromRapid(rt), Options{MaxSteps: 10_000})
		if _, err := workload(w); err != nil {
			rt.Fatal(err)
		}
	})
}
