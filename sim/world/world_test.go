package world

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/frameproof/frameproof/sim/choice"
)

func newWorld(seed uint64, opts Options) *World { return New(choice.NewSeeded(seed), opts) }

// requireNoLeak waits until the goroutine count is back to at most want.
// Wall time only lets exiting goroutines finish; the 10 s bound is a hang
// detector for a loaded machine, not a speed bound.
func requireNoLeak(t *testing.T, want int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
		if runtime.NumGoroutine() <= want {
			return
		}
		time.Sleep(time.Millisecond)
	}
	buf := make([]byte, 1<<16)
	n := runtime.Stack(buf, true)
	t.Fatalf("goroutines leaked: %d > %d\n%s", runtime.NumGoroutine(), want, buf[:n])
}

func TestOneActorAtATime(t *testing.T) {
	before := runtime.NumGoroutine()
	w := newWorld(1, Options{})
	running, maxRunning, total := 0, 0, 0
	body := func() {
		for range 20 {
			running++
			if running > maxRunning {
				maxRunning = running
			}
			total++
			runtime.Gosched() // give a broken scheduler a chance to overlap
			running--
			w.Yield()
		}
	}
	err := w.Run(func() {
		for i := range 5 {
			w.Go(fmt.Sprintf("worker%d", i), body)
		}
	})
	require.NoError(t, err)
	require.Equal(t, 1, maxRunning)
	require.Equal(t, 100, total)
	requireNoLeak(t, before)
}

func TestFuturesParkAndResolve(t *testing.T) {
	w := newWorld(2, Options{})
	var got []string
	err := w.Run(func() {
		f := w.NewFuture("reply")
		w.Go("responder", func() {
			got = append(got, "responder")
			f.Resolve(errors.New("nope"))
			f.Resolve(nil) // only the first resolve counts
		})
		got = append(got, "main waits")
		e := f.Wait()
		got = append(got, "main woke: "+e.Error())
		require.True(t, f.Done())
		require.EqualError(t, f.Wait(), "nope", "a resolved future returns at once")
	})
	require.NoError(t, err)
	require.Equal(t, []string{"main waits", "responder", "main woke: nope"}, got)
}

func TestWaitOutsideActorPanicsClearly(t *testing.T) {
	w := newWorld(1, Options{})
	f := w.NewFuture("x")
	require.PanicsWithValue(t,
		"world: Future.Wait(x#1) called outside an actor (on the test goroutine, before or after Run?); blocking calls must come from an actor started with Go or Run",
		func() { _ = f.Wait() })
	require.Panics(t, func() { w.Sleep(time.Second) })
	f.Resolve(nil) // resolving from the test goroutine is fine
	require.NoError(t, f.Wait(), "waiting on a resolved future is fine anywhere")
}

func TestDeadlockNamesWaiters(t *testing.T) {
	before := runtime.NumGoroutine()
	w := newWorld(3, Options{})
	err := w.Run(func() {
		never := w.NewFuture("never")
		w.Go("stuck", func() { _ = never.Wait() })
		_ = w.NewFuture("also-never").Wait()
	})
	var dl *DeadlockError
	require.ErrorAs(t, err, &dl)
	require.Equal(t, []Waiter{
		{Actor: "main#1", Process: "root@1", Future: "also-never#2"},
		{Actor: "stuck#2", Process: "root@1", Future: "never#1"},
	}, dl.Waiters)
	require.Contains(t, err.Error(), "stuck#2 (process root@1) waits on never#1")
	requireNoLeak(t, before)
}

func TestIdleOKAllowsBlockedDaemonsAfterMain(t *testing.T) {
	run := func(idle bool) error {
		w := newWorld(3, Options{IdleOK: idle})
		return w.Run(func() {
			work := w.NewFuture("work")
			w.Go("daemon", func() { _ = work.Wait() })
			w.Yield()
		})
	}
	require.NoError(t, run(true))
	var dl *DeadlockError
	require.ErrorAs(t, run(false), &dl)
}

func TestBudgetExhaustionIsALivenessFailure(t *testing.T) {
	before := runtime.NumGoroutine()
	w := newWorld(4, Options{MaxSteps: 50})
	err := w.Run(func() {
		w.Go("poller", func() {
			for {
				w.Sleep(time.Second)
			}
		})
		for {
			w.Yield()
		}
	})
	var be *BudgetError
	require.ErrorAs(t, err, &be)
	require.Equal(t, int64(50), w.Step())
	require.Contains(t, err.Error(), "step budget of 50 exhausted")
	requireNoLeak(t, before)
}

func TestActorPanicIsReported(t *testing.T) {
	before := runtime.NumGoroutine()
	w := newWorld(5, Options{})
	err := w.Run(func() {
		w.Go("other", func() { _ = w.NewFuture("never").Wait() })
		w.Yield()
		panic("boom")
	})
	var pe *PanicError
	require.ErrorAs(t, err, &pe)
	require.Equal(t, "main#1", pe.Actor)
	require.Equal(t, "boom", pe.Text)
	require.Contains(t, pe.Stack, "world_test.go")
	requireNoLeak(t, before)
}

func TestGoexitInsideActorIsReported(t *testing.T) {
	w := newWorld(5, Options{})
	err := w.Run(func() { runtime.Goexit() })
	var pe *PanicError
	require.ErrorAs(t, err, &pe)
	require.Contains(t, pe.Text, "runtime.Goexit")
}

func TestSleepAdvancesVirtualTimeInOrder(t *testing.T) {
	w := newWorld(6, Options{TimersOnlyWhenIdle: true})
	var order []string
	err := w.Run(func() {
		for _, d := range []int{30, 10, 20, 10} {
			w.Go(fmt.Sprintf("s%d", d), func() {
				w.Sleep(time.Duration(d) * time.Millisecond)
				order = append(order, fmt.Sprintf("%d@%s", d, w.Elapsed()))
			})
		}
	})
	require.NoError(t, err)
	require.ElementsMatch(t, []string{"10@10ms", "10@10ms", "20@20ms", "30@30ms"}, order)
	require.Equal(t, []string{"10@10ms", "10@10ms", "20@20ms", "30@30ms"}, order, "timers fire in time order")
	require.Equal(t, DefaultEpoch.Add(30*time.Millisecond), w.Now())
}

func TestClockMayAdvanceWhileRunnableUnlessIdleOnly(t *testing.T) {
	// A timeout races a busy actor: with early advances allowed, some seed
	// fires the timer before main's yields are done; with TimersOnlyWhenIdle
	// none does.
	firedEarly := func(seed uint64, idleOnly bool) bool {
		w := newWorld(seed, Options{TimersOnlyWhenIdle: idleOnly})
		fired, early := false, false
		require.NoError(t, w.Run(func() {
			w.Go("timeout", func() { w.Sleep(time.Second); fired = true })
			for range 3 {
				w.Yield()
			}
			early = fired
		}))
		require.True(t, fired)
		return early
	}
	sawEarly := false
	for seed := range uint64(30) {
		require.False(t, firedEarly(seed, true), "seed %d advanced time with runnable actors", seed)
		sawEarly = sawEarly || firedEarly(seed, false)
	}
	require.True(t, sawEarly, "no seed advanced the clock while main was runnable")
}

var uuidV7 = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

func TestIDsAreDeterministicUUIDv7(t *testing.T) {
	mint := func() []string {
		w := newWorld(7, Options{})
		var ids []string
		require.NoError(t, w.Run(func() {
			ids = append(ids, w.NewID(), w.NewID())
			w.Sleep(1500 * time.Millisecond)
			ids = append(ids, w.NewID())
		}))
		return ids
	}
	a, b := mint(), mint()
	require.Equal(t, a, b)
	for i, id := range a {
		require.Regexp(t, uuidV7, id)
		if i > 0 {
			require.Less(t, a[i-1], id, "ids must increase")
		}
	}
	// The timestamp is the virtual clock: 2026-01-01T00:00:00Z = 1767225600000 ms.
	require.True(t, strings.HasPrefix(strings.ReplaceAll(a[0], "-", ""), fmt.Sprintf("%012x", int64(1767225600000))), a[0])
	require.True(t, strings.HasPrefix(strings.ReplaceAll(a[2], "-", ""), fmt.Sprintf("%012x", int64(1767225601500))), a[2])
}

func TestRunTwiceIsAnError(t *testing.T) {
	w := newWorld(1, Options{})
	require.NoError(t, w.Run(func() {}))
	require.ErrorContains(t, w.Run(func() {}), "only be run once")
}

func TestStopEndsTheRunAndUnwinds(t *testing.T) {
	before := runtime.NumGoroutine()
	w := newWorld(8, Options{})
	unwound := false
	err := w.Run(func() {
		w.Go("forever", func() {
			defer func() { unwound = true }()
			for {
				w.Sleep(time.Second)
			}
		})
		w.Sleep(10 * time.Second)
		w.Stop()
	})
	require.NoError(t, err)
	require.True(t, unwound, "the sleeping actor must be unwound")
	requireNoLeak(t, before)
}

// Every waiter of a future wakes once with its error: the first, kept in
// the future itself, and the later ones; a waiter whose process crashes
// leaves the others waiting, and the future wakes only them.
func TestFutureWakesEveryWaiter(t *testing.T) {
	for n := 1; n <= 4; n++ {
		for crash := -1; crash < n; crash++ {
			w := newWorld(5, Options{})
			woke := make([]int, n)
			err := w.Run(func() {
				f := w.NewFuture("f")
				victim := w.NewProcess("victim")
				for i := range n {
					p := w.Root()
					if i == crash {
						p = victim
					}
					p.Go(fmt.Sprintf("waiter%d", i), func() {
						if e := f.Wait(); e != nil && e.Error() == "done" {
							woke[i]++
						}
					})
				}
				for range 3 {
					w.Yield()
				}
				victim.Crash()
				w.Yield()
				f.Resolve(errors.New("done"))
				for range 3 {
					w.Yield()
				}
			})
			require.NoError(t, err)
			for i := range n {
				want := 1
				if i == crash {
					want = 0
				}
				require.Equal(t, want, woke[i], "waiter %d of %d (crashed: %d)", i, n, crash)
			}
		}
	}
}

// CurrentProcess is Current's process, nil outside an actor; an actor's
// name, made when Current asks for it, is the one its trace records and
// spawn note carry.
func TestCurrentProcessIsCurrents(t *testing.T) {
	w := newWorld(6, Options{})
	require.Nil(t, w.CurrentProcess())
	names := map[string]bool{}
	require.NoError(t, w.Run(func() {
		svc := w.NewProcess("svc")
		for i := range 3 {
			p := w.Root()
			if i == 1 {
				p = svc
			}
			p.Go(strings.Repeat("x", 70*i), func() {
				name, p := w.Current()
				require.Same(t, p, w.CurrentProcess())
				names[name] = true
				w.Yield()
			})
		}
		w.Yield()
		w.Yield()
	}))
	recs, err := w.Trace().Records()
	require.NoError(t, err)
	seen := map[string]bool{}
	for _, r := range recs {
		seen[r.Actor] = true
		if r.Act == "spawn" {
			var kv struct{ Child string }
			require.NoError(t, json.Unmarshal(r.KV, &kv))
			seen[kv.Child] = true
		}
	}
	require.Len(t, names, 3)
	for n := range names {
		require.True(t, seen[n], "actor %q not in the trace", n)
	}
}

// A clock advance records the actors it wakes, in timer order (a due
// timer whose sleeper's process crashed wakes no one); the list reused
// from one advance is not the next one's.
func TestAdvanceRecordsWhomItWakes(t *testing.T) {
	w := newWorld(7, Options{})
	require.NoError(t, w.Run(func() {
		start := w.Now()
		until := func(d time.Duration) func() { return func() { w.Sleep(start.Add(d).Sub(w.Now())) } }
		victim := w.NewProcess("victim")
		victim.Go("gone", until(time.Second))
		w.Go("a", until(2*time.Second))
		w.Go("b", until(2*time.Second))
		w.Go("c", until(3*time.Second))
		w.Sleep(time.Second / 2)
		victim.Crash()
		w.Sleep(4 * time.Second)
	}))
	recs, err := w.Trace().Records()
	require.NoError(t, err)
	var woke []string
	for _, r := range recs {
		if r.Act == "advance" {
			woke = append(woke, string(r.KV))
		}
	}
	require.Equal(t, []string{`{"woke":["main#1"]}`, `{"woke":["a#3","b#4"]}`, `{"woke":["c#5"]}`, `{"woke":["main#1"]}`}, woke)
}
