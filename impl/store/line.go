package store

import (
	"fmt"
	"strconv"
	"sync"

	"github.com/frameproof/frameproof/impl/env"
)

// Line is the FIFO mutation line (pi's MutationLine). Work submitted with Run
// executes one item at a time, in submission order, on a line actor started
// with env.Executor.Go. Run never blocks its caller.
//
// Sealing follows pi exactly: after Seal(err), Run returns a future already
// resolved with err, and admitted items that have not started by their turn
// also resolve with err without running (pi checks the seal at each item's
// turn). The item running when Seal is called finishes normally. Seal keeps
// the first error.
//
// The actor waits only through env futures (inside the work itself, e.g. a
// storage commit); the line's own mutex is held only for queue bookkeeping,
// never across work, so a deterministic scheduler sees every blocking point.
type Line struct {
	exec env.Executor

	mu sync.Mutex
	// queue[head:] are the items not yet taken; the slice restarts at its
	// front whenever it empties, so the queue reuses its array
	queue   []*lineItem
	head    int
	running bool  // a line actor is alive and will drain queue
	sealed  error // first Seal error, nil while open
	tail    env.Future
	seq     int // items submitted, for actor names
	// names holds the future names of the item names seen so far (a
	// lane's are a few constants), so a Run does not concatenate them
	names map[string]itemNames
}

// LineFuturePrefix starts the name of an item's done future:
// LineFuturePrefix+name, where name is the item's (Line.Run).
const LineFuturePrefix = "line:"

// itemNames are the names of an item's two futures.
type itemNames struct{ done, settled string }

// maxCachedNames bounds Line.names.
const maxCachedNames = 64

// namesLocked is the names of the futures of an item called name; l.mu is
// held.
func (l *Line) namesLocked(name string) itemNames {
	if n, ok := l.names[name]; ok {
		return n
	}
	n := itemNames{done: LineFuturePrefix + name, settled: "line-settled:" + name}
	if len(l.names) < maxCachedNames {
		if l.names == nil {
			l.names = make(map[string]itemNames)
		}
		l.names[name] = n
	}
	return n
}

type lineItem struct {
	name    string
	work    LineWork
	done    env.Completer // resolves with the work's error
	settled env.Completer // resolves nil once done has resolved
}

// NewLine returns an empty, open line.
func NewLine(exec env.Executor) *Line {
	return &Line{exec: exec}
}

// Run enqueues work and returns its future without waiting.
func (l *Line) Run(name string, work LineWork) env.Future {
	l.mu.Lock()
	names := l.namesLocked(name)
	l.mu.Unlock()
	done := l.exec.NewFuture(names.done)
	l.mu.Lock()
	if l.sealed != nil {
		err := l.sealed
		l.mu.Unlock()
		done.Resolve(err)
		return done
	}
	item := &lineItem{name: name, work: work, done: done, settled: l.exec.NewFuture(names.settled)}
	if l.head > 0 && len(l.queue) == cap(l.queue) {
		// full with taken slots at its front: move the queued items
		// there instead of growing the array
		n := copy(l.queue, l.queue[l.head:])
		clear(l.queue[n:])
		l.queue, l.head = l.queue[:n], 0
	}
	l.queue = append(l.queue, item)
	l.tail = item.settled
	l.seq++
	start := !l.running
	l.running = true
	n := l.seq
	l.mu.Unlock()
	if start {
		l.exec.Go("line-actor#"+strconv.Itoa(n), l.actor)
	}
	return done
}

// Fenced enqueues a fenced commit: at the item's turn, plan computes the
// writes from in-process state; ok=false declines silently (no commit, the
// future resolves nil). Otherwise the writes are committed to st and, on
// success, onCommit (may be nil) runs before the future resolves. A commit
// error resolves the future with that error.
func (l *Line) Fenced(name string, st Storage, plan func() (writes []Write, ok bool), onCommit func(CommitResult)) env.Future {
	return l.Run(name, func() error {
		writes, ok := plan()
		if !ok {
			return nil
		}
		res, err := st.Commit(writes)
		if err != nil {
			return err
		}
		if onCommit != nil {
			onCommit(res)
		}
		return nil
	})
}

// Seal rejects later Run calls with err and returns the current tail: a
// future that resolves (always with nil) once every admitted item settled.
// A nil err is replaced by a generic error so that a sealed line stays sealed.
func (l *Line) Seal(err error) env.Future {
	if err == nil {
		err = fmt.Errorf("store: line sealed")
	}
	l.mu.Lock()
	if l.sealed == nil {
		l.sealed = err
	}
	tail := l.tailLocked()
	l.mu.Unlock()
	return tail
}

// Drain waits until every item admitted before the call has settled. It
// returns nil: item errors belong to their own futures.
func (l *Line) Drain() error {
	l.mu.Lock()
	tail := l.tailLocked()
	l.mu.Unlock()
	return tail.Wait()
}

// Sealed returns the seal error, or nil while the line is open.
func (l *Line) Sealed() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.sealed
}

func (l *Line) tailLocked() env.Future {
	if l.tail == nil {
		f := l.exec.NewFuture("line-empty-tail")
		f.Resolve(nil)
		l.tail = f
	}
	return l.tail
}

// actor runs queued items until the queue is empty, then exits; the next Run
// starts a new actor.
func (l *Line) actor() {
	for {
		l.mu.Lock()
		if len(l.queue) == l.head {
			l.running = false
			l.mu.Unlock()
			return
		}
		item := l.queue[l.head]
		l.queue[l.head] = nil
		if l.head++; l.head == len(l.queue) {
			l.queue, l.head = l.queue[:0], 0
		}
		sealed := l.sealed
		l.mu.Unlock()
		if sealed != nil {
			item.done.Resolve(sealed)
		} else {
			item.done.Resolve(runItem(item))
		}
		item.settled.Resolve(nil)
	}
}

// runItem runs one work item. It deliberately recovers nothing: a panic in
// work is a programming error that must take the process down (in
// production) or be reported by the simulator, and executors unwind
// abandoned actors with panics that no code in impl/ may swallow. Turning
// such a panic into an item error once let a crashed process's line keep
// committing under simulation.
func runItem(item *lineItem) error {
	if item.work == nil {
		return fmt.Errorf("store: line work %q is nil", item.name)
	}
	return item.work()
}
