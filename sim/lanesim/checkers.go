package lanesim

import (
	"github.com/frameproof/frameproof/impl/lane"
	"github.com/frameproof/frameproof/impl/store"
)

// Checkers. Each check_<name>.go holds one checker: a type that owns its
// state and subscribes to the run's events by implementing the matching
// method below. newCheckers lists them and newRegistry files them by
// event; at each event the runner calls its subscribers in list order,
// which is part of the run (a check's failure, race note or choice lands
// in the trace), so the order is kept as it was.
//
// The lockstep model (check_lockstep.go) and the porcupine history
// (check_linz.go) are also fed at finer points than these events (line
// items, provider events, steps) and are called where those happen; the
// seed's invariants (check_invariants.go) also run after every step.

// commitEvent is an acknowledged commit, with the reference's current
// operation before it.
type commitEvent struct {
	ws     []store.Write
	res    store.CommitResult
	prevOp string
	prev   *lane.OpState
}

type (
	// laneEventChecker sees every event the lane publishes to its
	// listener (from a live process).
	laneEventChecker interface{ laneEvent(ev lane.Event) }
	// frameChecker sees every frame record (enqueued, committed, declined,
	// failed) of a live process.
	frameChecker interface{ frame(fr lane.FrameRecord) }
	// reopenedChecker runs on a freshly opened lane and its first
	// snapshot; false (the run failed) skips the later subscribers.
	reopenedChecker interface {
		reopened(ln *lane.Lane, snap *lane.Snapshot) bool
	}
	// commitChecker runs on every acknowledged commit; false (the run
	// failed) skips the later subscribers for this commit.
	commitChecker interface{ commit(c commitEvent) bool }
	// committedFrameChecker runs when a frame's commit is reported.
	committedFrameChecker interface{ committedFrame(fr lane.FrameRecord) }
	// snapshotChecker runs on every snapshot taken at a scheduling point.
	snapshotChecker interface {
		snapshot(ln *lane.Lane, snap *lane.Snapshot, who string)
	}
	// restoredChecker runs when a reopened lane restored an effect_pending
	// operation.
	restoredChecker interface{ restored(st *lane.OpState) }
	// endChecker runs at the end of the run, after the final power loss
	// and recovery.
	endChecker interface{ end() }
)

// newCheckers builds the registry: every checker of a run, in subscription
// order.
func newCheckers(r *runner) []any {
	return []any{
		r.ls,
		r.reference,
		r.seqs,
		r.races,
		&snapshotPartialChecker{r: r},
		r.linz,
		r.capture,
		// the reopened lane's snapshot is checked before anything waits on
		// its line (a capture); the client and the invariants are free to
		// swap (check_clientfold.go)
		r.inv,
		lockstepCapture{r.ls},
		r.client,
		r.prefix,
		&wireChecker{r: r},
		&forkMigrateChecker{r: r},
		&toolBatchChecker{r: r},
		&inboxChecker{r: r},
	}
}

// registry is a run's checkers by the events they subscribe to, each list
// in registration order (newCheckers). It is built once per run, so an
// event calls its own subscribers instead of asking every checker whether
// it subscribes.
type registry struct {
	laneEvent      []laneEventChecker
	frame          []frameChecker
	reopened       []reopenedChecker
	commit         []commitChecker
	committedFrame []committedFrameChecker
	snapshot       []snapshotChecker
	restored       []restoredChecker
	end            []endChecker
}

// newRegistry subscribes each checker to every event it implements.
func newRegistry(checkers []any) registry {
	var g registry
	for _, k := range checkers {
		if s, ok := k.(laneEventChecker); ok {
			g.laneEvent = append(g.laneEvent, s)
		}
		if s, ok := k.(frameChecker); ok {
			g.frame = append(g.frame, s)
		}
		if s, ok := k.(reopenedChecker); ok {
			g.reopened = append(g.reopened, s)
		}
		if s, ok := k.(commitChecker); ok {
			g.commit = append(g.commit, s)
		}
		if s, ok := k.(committedFrameChecker); ok {
			g.committedFrame = append(g.committedFrame, s)
		}
		if s, ok := k.(snapshotChecker); ok {
			g.snapshot = append(g.snapshot, s)
		}
		if s, ok := k.(restoredChecker); ok {
			g.restored = append(g.restored, s)
		}
		if s, ok := k.(endChecker); ok {
			g.end = append(g.end, s)
		}
	}
	return g
}

// Event points: each calls the subscribers of one event.

func (r *runner) emitLaneEvent(ev lane.Event) {
	for _, s := range r.hooks.laneEvent {
		s.laneEvent(ev)
	}
}

func (r *runner) emitFrame(fr lane.FrameRecord) {
	for _, s := range r.hooks.frame {
		s.frame(fr)
	}
}

func (r *runner) emitReopened(ln *lane.Lane, snap *lane.Snapshot) bool {
	for _, s := range r.hooks.reopened {
		if !s.reopened(ln, snap) {
			return false
		}
	}
	return true
}

func (r *runner) emitCommit(c commitEvent) {
	for _, s := range r.hooks.commit {
		if !s.commit(c) {
			return
		}
	}
}

func (r *runner) emitCommittedFrame(fr lane.FrameRecord) {
	for _, s := range r.hooks.committedFrame {
		s.committedFrame(fr)
	}
}

func (r *runner) emitSnapshot(ln *lane.Lane, snap *lane.Snapshot, who string) {
	for _, s := range r.hooks.snapshot {
		s.snapshot(ln, snap, who)
	}
}

func (r *runner) emitRestored(st *lane.OpState) {
	for _, s := range r.hooks.restored {
		s.restored(st)
	}
}

func (r *runner) emitEnd() {
	for _, s := range r.hooks.end {
		s.end()
	}
}
