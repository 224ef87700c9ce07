package lane

import "github.com/frameproof/frameproof/impl/env"

// One mechanism hands every event to the listener, pi's HarnessEventBus
// emitBatch with its delivery tail (events.ts): a command's batch
// (plan.events) is queued on the line right after its commit, so batches
// keep commit order and never interleave, as pi's emitBatch inside
// session.mutate (runtime/lane.ts command); an event outside a command (a
// stream's message_update, pi's emit) is queued when it happens. Queued
// batches are delivered off the line, in queue order, one event at a time
// and each awaited, by whichever caller awaits a batch of its own (pi's
// `await outcome.delivery` after the mutation): a listener never runs on the
// line, so one that calls back into the lane (a cancel at turn_start or
// tool_start) never blocks it.

// eventBatch is one batch and the future resolved once every event of it
// was delivered.
type eventBatch struct {
	evs []Event
	// one is the batch's event when single is set (emit's batch of one,
	// held here rather than in a slice of its own)
	one    Event
	single bool
	done   env.Completer
}

// eventQueue is the lane's queue of undelivered batches.
type eventQueue struct {
	// batches[head:] are queued; the slice restarts at its front whenever
	// it empties, so the queue reuses its array
	batches []eventBatch
	head    int
	pumping bool // a caller is delivering
	// calling: the delivering caller is inside the listener's call. A
	// caller that finds it so may be that very call (a listener calling
	// the lane), whose batch can only be delivered after it returns.
	calling bool
}

// handOver queues evs as one batch and returns its delivery (nil: nothing
// to deliver). Commands call it on the line.
func (l *Lane) handOver(evs []Event) env.Future {
	if len(evs) == 0 || l.cfg.Listener == nil {
		return nil
	}
	return l.queueBatch(eventBatch{evs: evs})
}

// queueBatch queues b with its delivery future and returns that future.
// A closed lane queues nothing (nil): pi's Harness.close closes the event
// bus at once (runtime/harness.js close → events.js close), and emitBatch
// on a closed bus delivers nothing — not even the batch of a commit that
// was parked when the harness closed and lands during the close.
func (l *Lane) queueBatch(b eventBatch) env.Future {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return nil
	}
	l.mu.Unlock()
	b.done = l.cfg.Exec.NewFuture("lane:events")
	l.mu.Lock()
	if q := &l.evq; q.head > 0 && len(q.batches) == cap(q.batches) {
		// full with delivered slots at its front: move the queued
		// batches there instead of growing the array
		n := copy(q.batches, q.batches[q.head:])
		clear(q.batches[n:])
		q.batches, q.head = q.batches[:n], 0
	}
	l.evq.batches = append(l.evq.batches, b)
	l.mu.Unlock()
	return b.done
}

// awaitDelivery delivers the queued batches (ours among them) unless
// another caller is, and then awaits ours. It does not wait while the
// delivering caller is inside the listener: the caller may be that
// listener's own lane call, and pi's handler that awaited it would wait for
// itself; the batch is delivered, in order, once the listener returns.
func (l *Lane) awaitDelivery(f env.Future) {
	if f == nil {
		return
	}
	l.pumpEvents()
	if f.Done() { // delivered (by this caller, mostly): no scheduling point
		return
	}
	l.mu.Lock()
	nested := l.evq.calling
	l.mu.Unlock()
	if nested {
		return
	}
	_ = f.Wait()
}

// emit hands one event over outside a command and awaits its delivery
// (pi's emit: emitBatch of one event).
func (l *Lane) emit(ev Event) {
	if l.cfg.Listener == nil {
		return
	}
	l.awaitDelivery(l.queueBatch(eventBatch{one: ev, single: true}))
}

// pumpEvents delivers queued batches in order unless another caller
// already is (it delivers ours too).
func (l *Lane) pumpEvents() {
	for {
		l.mu.Lock()
		if l.evq.pumping || len(l.evq.batches) == l.evq.head {
			l.mu.Unlock()
			return
		}
		l.evq.pumping = true
		b := l.evq.batches[l.evq.head]
		l.evq.batches[l.evq.head] = eventBatch{}
		if l.evq.head++; l.evq.head == len(l.evq.batches) {
			l.evq.batches, l.evq.head = l.evq.batches[:0], 0
		}
		l.mu.Unlock()
		l.deliverBatch(b)
	}
}

// deliverBatch delivers b's events and resolves its delivery. A listener
// that panics takes the lane call delivering it down with it, but not the
// queue: the flags are cleared and b resolved on the way out, so the next
// caller delivers the batches behind it (pi's bus isolates a throwing
// handler and goes on draining).
func (l *Lane) deliverBatch(b eventBatch) {
	defer func() {
		l.mu.Lock()
		l.evq.pumping, l.evq.calling = false, false
		l.mu.Unlock()
		b.done.Resolve(nil)
	}()
	if b.single {
		l.deliverOne(b.one)
		return
	}
	for _, ev := range b.evs {
		l.deliverOne(ev)
	}
}

// deliverOne calls the listener and awaits the future it returns (pi's
// deliver awaits each listener).
func (l *Lane) deliverOne(ev Event) {
	ev.Lane = l.cfg.Name
	l.mu.Lock()
	l.evq.calling = true
	l.mu.Unlock()
	f := l.cfg.Listener(ev)
	l.mu.Lock()
	l.evq.calling = false
	l.mu.Unlock()
	if f != nil {
		_ = f.Wait()
	}
}
