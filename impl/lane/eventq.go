package lane

import "github.com/frameproof/frameproof/impl/env"

// The events of a command's plan are queued on the line (in the order the
// commands ran there, as pi emits a command's events before its line moves
// on) and handed to the listener off the line, one batch at a time, by
// whichever caller comes to deliver them: a listener that calls back into
// the lane (a cancel at tool_start) never blocks the line, and concurrent
// tool jobs (runParallel) cannot reorder events across commands.

// eventBatch is one command's events and the future resolved once every
// one was delivered.
type eventBatch struct {
	evs  []Event
	done env.Completer
}

// eventQueue is the lane's queue of undelivered batches.
type eventQueue struct {
	batches []eventBatch
	pumping bool // a caller is delivering
}

// queueEvents appends evs (on the line) and returns their delivery.
func (l *Lane) queueEvents(evs []Event) env.Future {
	b := eventBatch{evs: evs, done: l.cfg.Exec.NewFuture("lane:events")}
	l.mu.Lock()
	l.evq.batches = append(l.evq.batches, b)
	l.mu.Unlock()
	return b.done
}

// pumpEvents delivers queued batches in order unless another caller
// already is (it delivers ours too).
func (l *Lane) pumpEvents() {
	for {
		l.mu.Lock()
		if l.evq.pumping || len(l.evq.batches) == 0 {
			l.mu.Unlock()
			return
		}
		l.evq.pumping = true
		b := l.evq.batches[0]
		l.evq.batches = l.evq.batches[1:]
		l.mu.Unlock()
		for _, ev := range b.evs {
			l.emit(ev)
		}
		l.mu.Lock()
		l.evq.pumping = false
		l.mu.Unlock()
		b.done.Resolve(nil)
	}
}
