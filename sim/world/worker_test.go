package world

import (
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
