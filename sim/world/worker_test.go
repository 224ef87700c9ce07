package world

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"
)

// An actor that finished hands its goroutine to the next one: a chain of
// actors, each started by the one before, runs on one goroutine, and the
// goroutine ends with the run.
func TestFinishedActorsHandOnTheirGoroutine(t *testing.T) {
	for _, deep := range []bool{false, true} {
		before := runtime.NumGoroutine()
		w := newWorld(1, Options{DeepActors: deep})
		ran := 0
		var next func()
		next = func() {
			ran++
			if ran < 50 {
				w.Go("link", next)
			}
		}
		require.NoError(t, w.Run(next))
		require.Equal(t, 50, ran)
		require.Equal(t, 1, w.workers, "deep=%v", deep)
		requireNoLeak(t, before)
	}
}

// An actor that ends by runtime.Goexit takes its goroutine with it (it is
// never handed to another actor) and the run leaves nothing behind.
func TestGoexitLosesItsGoroutine(t *testing.T) {
	before := runtime.NumGoroutine()
	w := newWorld(1, Options{DeepActors: true})
	err := w.Run(func() {
		w.Go("after", func() {})
		runtime.Goexit()
	})
	var pe *PanicError
	require.ErrorAs(t, err, &pe)
	require.Contains(t, pe.Text, "runtime.Goexit")
	require.Empty(t, w.idle)
	requireNoLeak(t, before)
}

// Worlds that share a pool hand goroutines on from one run to the next:
// the second world starts none of its own, and a world's run leaves at
// most the pool's bound behind (idle in the pool).
func TestSharedWorkersServeTheNextWorld(t *testing.T) {
	before := runtime.NumGoroutine()
	pool := NewWorkers(2)
	chain := func(w *World, n int) func() {
		ran := 0
		var next func()
		next = func() {
			ran++
			if ran < n {
				w.Go("link", next)
			}
		}
		return next
	}
	w1 := newWorld(1, Options{Workers: pool, DeepActors: true})
	require.NoError(t, w1.Run(chain(w1, 20)))
	require.Equal(t, 1, w1.workers)
	w2 := newWorld(2, Options{Workers: pool, DeepActors: true})
	require.NoError(t, w2.Run(chain(w2, 20)))
	require.Equal(t, 0, w2.workers)

	// five actors alive at once need five goroutines; two stay in the pool
	w3 := newWorld(3, Options{Workers: pool})
	require.NoError(t, w3.Run(func() {
		for range 5 {
			w3.Go("sibling", func() { w3.Yield() })
		}
	}))
	requireNoLeak(t, before+2)
	require.Len(t, pool.idle, 2)
}

// Worlds running at once may share a pool: each runs all its actors and
// reaches the same trace as alone.
func TestSharedWorkersAcrossConcurrentWorlds(t *testing.T) {
	run := func(seed uint64, pool *Workers) string {
		w := newWorld(seed, Options{Workers: pool})
		err := w.Run(func() {
			for i := range 4 {
				w.Go(fmt.Sprint("a", i), func() {
					for range 10 {
						w.Yield()
					}
				})
			}
		})
		return fmt.Sprint(w.Trace().Hash(), err) // no require off the test goroutine
	}
	alone := map[uint64]string{}
	for seed := uint64(1); seed <= 8; seed++ {
		alone[seed] = run(seed, nil)
		require.NotContains(t, alone[seed], "error")
	}
	pool := NewWorkers(4)
	got := make(chan [2]string, 8)
	for seed := uint64(1); seed <= 8; seed++ {
		go func() { got <- [2]string{alone[seed], run(seed, pool)} }()
	}
	for range 8 {
		h := <-got
		require.Equal(t, h[0], h[1])
	}
}
