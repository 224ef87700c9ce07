package world

import (
	"errors"
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/frameproof/frameproof/sim/trace"
)

func TestCrashKillsExactlyOneIncarnation(t *testing.T) {
	before := runtime.NumGoroutine()
	w := newWorld(11, Options{TimersOnlyWhenIdle: true})
	afterCrash := 0 // user code of server@1 that ran after the crash
	crashed := false
	var clientErr, deferredWait error
	var deferredRan []string
	var p2 *Process
	err := w.Run(func() {
		p := w.NewProcess("server")
		reply := p.NewFuture("reply")
		internal := p.NewFuture("internal")
		p.Go("waiter", func() {
			defer func() {
				deferredRan = append(deferredRan, "waiter")
				// Effects from a dead actor's deferred code are ignored.
				internal.Resolve(nil)
				w.Go("zombie", func() { afterCrash++ })
				w.Note("zombie-note")
			}()
			_ = internal.Wait()
			afterCrash++ // internal is only resolved by the crash
		})
		p.Go("sleeper", func() {
			defer func() {
				deferredRan = append(deferredRan, "sleeper")
				deferredWait = errors.New("no panic")
				defer func() { deferredWait = nil; _ = recover() }()
				_ = w.NewFuture("x").Wait() // re-panics: a dead actor cannot block
			}()
			w.Sleep(time.Hour)
			afterCrash++
		})
		p.Go("spinner", func() {
			for {
				if crashed {
					afterCrash++
				}
				w.Yield()
			}
		})
		for range 5 {
			w.Yield()
		}
		w.Go("client", func() { clientErr = reply.Wait() })
		w.Yield()
		w.Yield()
		p.Go("never-started", func() { afterCrash++ })
		crashed = true
		p.Crash()
		require.False(t, p.Alive())
		require.True(t, reply.Done(), "owned futures resolve on crash")
		require.Nil(t, p.Actors())
		p.Crash() // crashing twice is harmless
		p.Go("late", func() { afterCrash++ })
		require.ErrorIs(t, p.NewFuture("late").Wait(), ErrCrashed, "futures of a dead process are born crashed")

		p2 = p.Restart()
		ran := false
		p2.Go("worker", func() { ran = true })
		for !ran {
			w.Yield()
		}
	})
	require.NoError(t, err)
	if afterCrash != 0 {
		_ = w.Trace().WriteJSONL(os.Stderr)
	}
	require.Zero(t, afterCrash, "a crashed process ran user code")
	require.ErrorIs(t, clientErr, ErrCrashed)
	require.EqualError(t, clientErr, "world: process crashed: server@1")
	require.ElementsMatch(t, []string{"waiter", "sleeper"}, deferredRan)
	require.NoError(t, deferredWait, "Wait inside dead deferred code must re-panic")
	require.Equal(t, "server@2", p2.String())
	require.Equal(t, 2, p2.Incarnation())
	recs, rerr := w.Trace().Records()
	require.NoError(t, rerr)
	for _, r := range recs {
		require.NotEqual(t, "zombie-note", r.Act)
	}
	require.True(t, hasAct(recs, "crash"))
	require.True(t, hasAct(recs, "spawn-ignored"))
	requireNoLeak(t, before)
}

func TestSelfCrashDoesNotReturn(t *testing.T) {
	before := runtime.NumGoroutine()
	w := newWorld(12, Options{})
	reached := false
	var peerErr error
	err := w.Run(func() {
		p := w.NewProcess("lane")
		done := p.NewFuture("done")
		p.Go("peer", func() { _ = w.NewFuture("never").Wait() })
		p.Go("suicidal", func() {
			w.Yield()
			p.Crash()
			reached = true
		})
		peerErr = done.Wait()
	})
	require.NoError(t, err)
	require.False(t, reached)
	require.ErrorIs(t, peerErr, ErrCrashed)
	requireNoLeak(t, before)
}

func TestGoFromActorInheritsProcess(t *testing.T) {
	w := newWorld(13, Options{})
	var childProc, mainProc *Process
	require.NoError(t, w.Run(func() {
		_, mainProc = w.Current()
		p := w.NewProcess("svc")
		env := p.Env(nil)
		env.Executor.Go("parent", func() {
			w.Go("child", func() { _, childProc = w.Current() })
		})
		for childProc == nil {
			w.Yield()
		}
	}))
	require.Equal(t, "root@1", mainProc.String())
	require.Equal(t, "svc@1", childProc.String())
}

func hasAct(recs []trace.Record, act string) bool {
	for _, r := range recs {
		if r.Act == act {
			return true
		}
	}
	return false
}
