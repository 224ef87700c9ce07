package lane

import (
	"errors"
	"sync"
	"testing"

	"github.com/frameproof/frameproof/impl/env"
	"github.com/frameproof/frameproof/impl/store"
	"github.com/stretchr/testify/require"
)

// appliedGate lets the first commit that deletes a list (the settlement)
// reach storage, then holds its acknowledgement: the window in which the
// JSONL store compacts after applying a deleting commit.
type appliedGate struct {
	store.Storage
	once    sync.Once
	held    chan struct{} // closed once the settlement is applied and held
	release chan struct{}
}

func (g *appliedGate) Commit(ws []store.Write) (store.CommitResult, error) {
	res, err := g.Storage.Commit(ws)
	if err == nil && deletesList(ws) {
		g.once.Do(func() {
			close(g.held)
			<-g.release
		})
	}
	return res, err
}

func deletesList(ws []store.Write) bool {
	for _, w := range ws {
		if w.Kind == store.WriteList && w.Op == store.OpDelete {
			return true
		}
	}
	return false
}

// futureSpy reports when a future of the given name is created: the line
// creates "line:capture" when a capture queues on it.
type futureSpy struct {
	env.Executor
	name string
	once sync.Once
	seen chan struct{}
}

func (s *futureSpy) NewFuture(name string) env.Completer {
	if name == s.name {
		s.once.Do(func() { close(s.seen) })
	}
	return s.Executor.NewFuture(name)
}

// runtime/lane.ts Lane.watch → readLane: captureLaneSnapshot runs on the
// mutation line, so it never pairs the effect_pending state with the storage
// of a settlement that is applied but not yet acknowledged.
func TestCaptureNeverSeesAnUnacknowledgedSettlement(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		h := newHarness(t, b)
		gate := &appliedGate{Storage: h.store, held: make(chan struct{}), release: make(chan struct{})}
		h.gated.Storage = gate
		spy := &futureSpy{Executor: env.Goroutines{}, name: "line:capture", seen: make(chan struct{})}
		h.exec = spy
		l := h.open()
		h.start(1)
		h.provider.add(helloScript())
		driven := make(chan error, 1)
		go func() {
			_, err := l.Drive(StepOptions{})
			driven <- err
		}()
		<-gate.held

		type captured struct {
			s   *Snapshot
			err error
		}
		got := make(chan captured, 1)
		go func() {
			s, err := l.Capture()
			got <- captured{s, err}
		}()
		var c captured
		select {
		case c = <-got: // answered while the settlement is unacknowledged
			close(gate.release)
		case <-spy.seen: // queued behind the settlement on the line
			close(gate.release)
			c = <-got
		}
		require.NoError(t, <-driven)
		require.NoError(t, c.err)
		if st := c.s.State; st != nil && st.At.IsEffectPending() {
			require.NotNil(t, c.s.StreamingMessage, "capture pairs effect_pending with the settled (frameless) storage")
			require.Equal(t, "hello world", textOf(c.s.StreamingMessage))
		} else {
			require.Nil(t, c.s.StreamingMessage)
		}
	})
}

// failingReads fails every list read once armed.
type failingReads struct {
	store.Storage
	mu   sync.Mutex
	fail error
}

func (f *failingReads) ReadList(addr store.Address, opts store.ReadOptions) ([]store.ListElement, error) {
	f.mu.Lock()
	err := f.fail
	f.mu.Unlock()
	if err != nil {
		return nil, err
	}
	return f.Storage.ReadList(addr, opts)
}

// runtime/lane.ts Lane.readLane: an error inside captureLaneSnapshot faults
// the harness (onFault), and a faulted lane refuses the next capture
// (assertOpen) with that fault.
func TestCaptureReadErrorFaultsTheLane(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		h := newHarness(t, b)
		reads := &failingReads{Storage: h.store}
		h.gated.Storage = reads
		crashRun(t, h, 3, helloScript(), 5) // reopened at effect_pending: the capture reads frames
		l := h.lane
		cur := l.Current()
		require.NotNil(t, cur)
		require.True(t, cur.State.At.IsEffectPending(), "state %s", cur.State.At)

		reads.mu.Lock()
		reads.fail = errors.New("disk on fire")
		reads.mu.Unlock()
		_, err := l.Capture()
		var hf *HarnessFault
		require.ErrorAs(t, err, &hf)
		require.ErrorContains(t, err, "disk on fire")
		require.Equal(t, error(hf), l.Fault())

		reads.mu.Lock()
		reads.fail = nil
		reads.mu.Unlock()
		_, err = l.Capture()
		require.ErrorIs(t, err, hf)
	})
}

// runtime/lane.ts Lane.watch → readLane: the view a client starts from
// (captureLaneSnapshot) is one cut of state and storage. Snapshot, the
// seed's view over it, reads at one cut too: it never pairs a recovery's
// effect_pending state with the storage of its applied but unacknowledged
// settlement (it waits for the commit in flight to publish its state).
func TestSnapshotNeverSeesAnUnacknowledgedSettlement(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		h := newHarness(t, b)
		gate := &appliedGate{Storage: h.store, held: make(chan struct{}), release: make(chan struct{})}
		h.gated.Storage = gate
		snap, _, err := snapshotBesideHeldSettlement(t, h, gate.held, gate.release)
		require.NoError(t, err)
		if st := snap.State; st != nil && st.At.IsEffectPending() {
			require.NotNil(t, snap.StreamingMessage, "snapshot pairs effect_pending with the settled (frameless) storage")
			require.Equal(t, "hello ", textOf(snap.StreamingMessage))
		} else {
			require.Nil(t, snap.StreamingMessage)
		}
	})
}

// snapshotBesideHeldSettlement reopens h's lane at effect_pending with
// "hello " committed, starts the recovery step, and once its settlement is
// held (held closed) takes a Snapshot, then releases the settlement. waited
// reports that the Snapshot waited for the commit to publish its state.
func snapshotBesideHeldSettlement(t *testing.T, h *harness, held, release chan struct{}) (snap *Snapshot, waited bool, err error) {
	t.Helper()
	spy := &futureSpy{Executor: env.Goroutines{}, name: "lane:commit-published", seen: make(chan struct{})}
	h.exec = spy
	crashRun(t, h, 3, helloScript(), 5)
	l := h.lane
	stepped := make(chan error, 1)
	go func() {
		_, err := l.Step(StepOptions{}) // recovery: its settlement deletes the frames
		stepped <- err
	}()
	<-held
	type snapped struct {
		s   *Snapshot
		err error
	}
	got := make(chan snapped, 1)
	go func() {
		s, err := l.Snapshot()
		got <- snapped{s, err}
	}()
	var c snapped
	select {
	case c = <-got: // answered while the settlement is held
	case <-spy.seen: // waiting for the settlement to publish its state
		waited = true
	}
	close(release)
	if waited {
		c = <-got
	}
	require.NoError(t, <-stepped)
	return c.s, waited, c.err
}

// heldGate holds the first commit that deletes a list (the settlement)
// before it reaches storage.
type heldGate struct {
	store.Storage
	once    sync.Once
	held    chan struct{} // closed once the settlement is held
	release chan struct{}
}

func (g *heldGate) Commit(ws []store.Write) (store.CommitResult, error) {
	if deletesList(ws) {
		g.once.Do(func() {
			close(g.held)
			<-g.release
		})
	}
	return g.Storage.Commit(ws)
}

// A commit in flight that has not reached storage leaves the published
// state and storage one cut: Snapshot answers at once with the state before
// it and waits for nothing (a wait would open props/lane's commit gate).
func TestSnapshotBesideAnUnappliedCommitDoesNotWait(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		h := newHarness(t, b)
		gate := &heldGate{Storage: h.store, held: make(chan struct{}), release: make(chan struct{})}
		h.gated.Storage = gate
		snap, waited, err := snapshotBesideHeldSettlement(t, h, gate.held, gate.release)
		require.False(t, waited, "snapshot waited for a commit that had not reached storage")
		require.NoError(t, err)
		require.NotNil(t, snap.State)
		require.True(t, snap.State.At.IsEffectPending(), "state %s", snap.State.At)
		require.Equal(t, "hello ", textOf(snap.StreamingMessage))
	})
}
