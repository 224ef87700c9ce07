package store_test

import (
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/frameproof/frameproof/impl/env"
	"github.com/frameproof/frameproof/impl/env/envtest"
	"github.com/frameproof/frameproof/impl/store"
	"github.com/frameproof/frameproof/impl/store/memory"
)

var exec = env.Goroutines{}

// recorder notes the order in which line work ran.
type recorder struct {
	mu  sync.Mutex
	ran []int
}

func (r *recorder) work(i int, err error) store.LineWork {
	return func() error {
		r.mu.Lock()
		r.ran = append(r.ran, i)
		r.mu.Unlock()
		return err
	}
}

func (r *recorder) snapshot() []int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]int(nil), r.ran...)
}

func TestLineRunsInSubmissionOrderAndNeverBlocksCaller(t *testing.T) {
	l := store.NewLine(exec)
	gate := exec.NewFuture("gate")
	rec := &recorder{}
	first := l.Run("gated", func() error { return gate.Wait() })
	var futs []env.Future
	for i := range 200 {
		futs = append(futs, l.Run(fmt.Sprint(i), rec.work(i, nil))) // returns although the line is blocked
	}
	assert.False(t, first.Done())
	assert.Empty(t, rec.snapshot(), "nothing overtakes the gated item")
	gate.Resolve(nil)
	require.NoError(t, l.Drain())
	for i, f := range futs {
		assert.True(t, f.Done(), "drain implies item %d settled", i)
	}
	want := make([]int, 200)
	for i := range want {
		want[i] = i
	}
	assert.Equal(t, want, rec.snapshot())
}

func TestLineSealFollowsPi(t *testing.T) {
	l := store.NewLine(exec)
	gate := exec.NewFuture("gate")
	rec := &recorder{}
	started := exec.NewFuture("started")
	running := l.Run("running", func() error { started.Resolve(nil); return gate.Wait() })
	require.NoError(t, started.Wait())
	queued := l.Run("queued", rec.work(1, nil))
	sealErr := errors.New("harness fault")
	tail := l.Seal(sealErr)
	l.Seal(errors.New("second seal is ignored"))
	later := l.Run("later", rec.work(2, nil))
	require.True(t, later.Done(), "a run after seal resolves immediately")
	require.ErrorIs(t, later.Wait(), sealErr)
	assert.False(t, tail.Done(), "the tail waits for admitted work")
	gate.Resolve(nil)
	require.NoError(t, tail.Wait(), "the tail never rejects")
	require.NoError(t, running.Wait(), "the running item finishes normally")
	require.ErrorIs(t, queued.Wait(), sealErr, "admitted but not started: rejected at its turn, as pi does")
	assert.Empty(t, rec.snapshot())
	assert.ErrorIs(t, l.Sealed(), sealErr)
	require.NoError(t, l.Drain())
}

func TestLineItemErrorsStayInTheirFutures(t *testing.T) {
	l := store.NewLine(exec)
	boom := errors.New("boom")
	f1 := l.Run("err", func() error { return boom })
	f3 := l.Run("nil", nil)
	f4 := l.Run("ok", func() error { return nil })
	require.ErrorIs(t, f1.Wait(), boom)
	require.Error(t, f3.Wait())
	require.NoError(t, f4.Wait())
	require.NoError(t, l.Drain(), "drain reports nothing of item errors")
}

// panicCatcher is an executor whose actors report a panic instead of
// crashing the test binary, the way the simulator's world does.
type panicCatcher struct {
	env.Goroutines
	panics chan any
}

func (p panicCatcher) Go(name string, fn func()) {
	p.Goroutines.Go(name, func() {
		defer func() {
			if r := recover(); r != nil {
				p.panics <- r
			}
		}()
		fn()
	})
}

// TestLinePanicsPropagateToTheExecutor: the line must not swallow panics,
// because executors unwind abandoned actors with them.
func TestLinePanicsPropagateToTheExecutor(t *testing.T) {
	ex := panicCatcher{panics: make(chan any, 1)}
	l := store.NewLine(ex)
	type unwind struct{}
	f := l.Run("panic", func() error { panic(unwind{}) })
	require.Equal(t, unwind{}, <-ex.panics)
	require.False(t, f.Done(), "the panicking item never resolves: its actor is gone")
}

func TestFencedDeclinesCommitsAndReportsErrors(t *testing.T) {
	l := store.NewLine(exec)
	s := memory.New(envtest.NewTickClock(0))
	la := store.MustList[int]("pi.pending.assistant_frame", "op:r")
	fenceOpen := true
	var committed []store.CommitResult
	appendFrame := func(v int) env.Future {
		return l.Fenced("frame", s, func() ([]store.Write, bool) {
			if !fenceOpen { // read at the item's turn, not at submission
				return nil, false
			}
			w, err := store.AppendList(la, v)
			require.NoError(t, err)
			return []store.Write{w}, true
		}, func(r store.CommitResult) { committed = append(committed, r) })
	}
	require.NoError(t, appendFrame(1).Wait())
	// Close the fence on the line itself, between two queued appends.
	close := l.Run("settle", func() error { fenceOpen = false; return nil })
	declined := appendFrame(2)
	require.NoError(t, close.Wait())
	require.NoError(t, declined.Wait(), "a declined append resolves nil")
	els, err := s.ReadList(la.Address, store.ReadOptions{})
	require.NoError(t, err)
	require.Len(t, els, 1)
	assert.Len(t, committed, 1)
	assert.Equal(t, int64(2), s.NextSeq(), "the decline committed nothing")

	// A commit error resolves the future with that error.
	require.NoError(t, s.Close())
	fenceOpen = true
	require.EqualError(t, appendFrame(3).Wait(), "MemoryStorage is closed")
	assert.Len(t, committed, 1, "onCommit not called on error")
}

// TestLineProperty: under real goroutines and random submit/seal/drain
// sequences, executed items are a prefix of the admitted items in order,
// results belong to their own item, and nothing submitted after the seal runs.
func TestLineProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		l := store.NewLine(exec)
		rec := &recorder{}
		type sub struct {
			fut       env.Future
			err       error
			afterSeal bool
		}
		var subs []sub
		var sealErr error
		steps := rapid.IntRange(1, 60).Draw(t, "steps")
		for range steps {
			switch rapid.IntRange(0, 9).Draw(t, "op") {
			case 0:
				if sealErr == nil {
					sealErr = errors.New("sealed")
				}
				l.Seal(sealErr)
			case 1:
				n := len(subs)
				require.NoError(t, l.Drain())
				for i := range n {
					require.True(t, subs[i].fut.Done(), "drain implies item %d done", i)
				}
			default:
				i := len(subs)
				var err error
				if rapid.Bool().Draw(t, "fails") {
					err = fmt.Errorf("item %d", i)
				}
				subs = append(subs, sub{fut: l.Run(fmt.Sprint(i), rec.work(i, err)), err: err, afterSeal: sealErr != nil})
			}
		}
		require.NoError(t, l.Drain())
		ran := rec.snapshot()
		for k, i := range ran {
			require.Equal(t, k, i, "executed items are the admitted prefix, in order")
		}
		for i, s := range subs {
			got := s.fut.Wait()
			switch {
			case i < len(ran):
				require.False(t, s.afterSeal)
				require.Equal(t, s.err, got, "item %d result", i)
			default:
				require.NotNil(t, sealErr, "item %d never ran although the line is open", i)
				require.ErrorIs(t, got, sealErr)
			}
		}
	})
}

// TestLineStaysFIFOWhileItNeverEmpties: items that submit more items keep
// the queue from emptying while its front is taken, so the queue moves its
// items to the front of its array instead of growing it (Run); the order
// must stay the submission order through every such move.
func TestLineStaysFIFOWhileItNeverEmpties(t *testing.T) {
	const total = 500
	l := store.NewLine(exec)
	rec := &recorder{}
	var mu sync.Mutex
	next := 0
	var submit func(width int)
	submit = func(width int) {
		for range width {
			mu.Lock()
			if next == total {
				mu.Unlock()
				return
			}
			i := next
			next++
			work := rec.work(i, nil)
			// submitted under mu: ids in submission order (Run never blocks)
			l.Run(fmt.Sprint(i), func() error {
				err := work()
				submit(1 + i%3) // 1 to 3 more: the queue grows and shrinks
				return err
			})
			mu.Unlock()
		}
	}
	submit(5)
	// each drain waits for the tail it saw, whose work has submitted the
	// next items first: a drain that ran nothing new means none are left
	for seen := -1; seen != len(rec.snapshot()); {
		seen = len(rec.snapshot())
		require.NoError(t, l.Drain())
	}
	want := make([]int, total)
	for i := range want {
		want[i] = i
	}
	assert.Equal(t, want, rec.snapshot())
}

// namingExec records the names of the futures it makes.
type namingExec struct {
	env.Goroutines
	mu    sync.Mutex
	names []string
}

func (e *namingExec) NewFuture(name string) env.Completer {
	e.mu.Lock()
	e.names = append(e.names, name)
	e.mu.Unlock()
	return e.Goroutines.NewFuture(name)
}

// TestLineFutureNames: every item's futures are named "line:"+name and
// "line-settled:"+name, for names seen before (Line.names) and past the
// names it keeps.
func TestLineFutureNames(t *testing.T) {
	e := &namingExec{}
	l := store.NewLine(e)
	var want []string
	for i := range 3 * 100 {
		name := fmt.Sprint("item", i%100) // 100 names, each three times
		require.NoError(t, l.Run(name, func() error { return nil }).Wait())
		want = append(want, "line:"+name, "line-settled:"+name)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	assert.Equal(t, want, e.names)
}
