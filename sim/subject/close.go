package subject

import (
	"encoding/json"
	"fmt"
	"slices"

	ml "github.com/frameproof/frameproof/model/lane"
	"github.com/frameproof/frameproof/sim/lanesim"
)

// close-vs-settlement and activation-vs-snapshot on a subject.
//
// Close (pi's runtime/harness.ts AgentHarness.close): every lane is sealed
// (runtime/lane.ts seal: the active drive's gate closes, so it admits no
// more commits; its provider request is aborted), the session's mutation
// line is sealed (session/mutation-line.ts seal: a mutation not yet
// started is refused, the one running finishes) and the storage closes
// after it. So a commit parked when close is issued may still land, and
// nothing admitted later does: a controlled crash, model/lane's Close. The
// runner releases the parked commits until close returns, feeds the ones
// that land to model/lane as usual, then ends the process and reopens the
// session in a new one (lanesim's closer does the same with impl/lane).
//
// Snapshot (pi's runtime/lane.ts watch → captureLaneSnapshot): read on
// the lane's mutation line, it shows the committed transcript and, for an
// operation at effect_pending, the reduction of its committed frames —
// model/lane's Capture (its Snapshot without the live partial, which pi's
// watcher delivers as later message_update events, not in the snapshot).

// The moments a close aims at (drawn once per run).
const (
	closeAtEffectPending = iota // the settlement not committed yet: close-first
	closeAtSettled              // no operation at effect_pending: settle-first
	closeAims
)

// maxSnapshots bounds a run's snapshots.
const maxSnapshots = 4

// committedOp is model/lane's committed current operation, if any.
func (r *runner) committedOp() (ml.Op, bool) {
	st := r.o.m.CommittedShared()
	if st.Lane.Current == "" {
		return ml.Op{}, false
	}
	op, ok := st.Ops[st.Lane.Current]
	return op, ok
}

func (r *runner) effectPending() bool {
	op, ok := r.committedOp()
	return ok && (op.At == ml.AtEffectPending || op.At == ml.AtDeferredEffect)
}

func (r *runner) closeAimed() bool {
	if r.closeAim == closeAtEffectPending {
		return r.effectPending()
	}
	return !r.effectPending()
}

// closeWeight: effect_pending lasts the whole stream; a settled moment
// (between the settlement and the next intent, or after the run) is rare.
func (r *runner) closeWeight() int {
	if r.closeAim == closeAtEffectPending {
		return 1
	}
	return 8
}

// close issues Harness.close and releases the commits parked then until it
// returns; then the process ends and a new one reopens the session.
func (r *runner) close() error {
	if r.effectPending() {
		r.race(lanesim.RowCloseSettle, lanesim.OrderCloseFirst)
	} else {
		r.race(lanesim.RowCloseSettle, lanesim.OrderSettleFirst)
	}
	r.closed, r.closedOnce, r.closeReturned = true, true, false
	r.closeParked = map[int]bool{}
	for _, c := range r.obs.Parked {
		r.closeParked[c.N] = true
	}
	r.trace("close process %d (%d commits parked)", r.process, len(r.obs.Parked))
	r.inflight++
	obs, err := r.sub.Start(CallClose, "")
	if err != nil {
		return err
	}
	if err := r.feed(obs); err != nil {
		return err
	}
	for !r.closeReturned {
		if len(r.obs.Parked) == 0 {
			return fmt.Errorf("subject: Harness.close has not returned and nothing is parked")
		}
		r.trace("release commit %s (closing)", describe(r.obs.Parked[0].Writes))
		obs, err := r.sub.ReleaseCommit(0)
		if err != nil {
			return err
		}
		if err := r.feed(obs); err != nil {
			return err
		}
	}
	if len(r.obs.Parked) > 0 {
		return fmt.Errorf("subject: Harness.close returned with %d commits parked", len(r.obs.Parked))
	}
	if err := r.checkEvents(false); err != nil {
		return err
	}
	if err := r.sub.Kill(); err != nil {
		return err
	}
	r.o.close()
	if !r.opts.Session.Durable() {
		r.dropped = true // a memory session ends with its process
		return nil
	}
	r.eventBase = len(r.o.m.EventsShared())
	r.implBase = len(r.events)
	r.eventsTolerated = 0
	r.inflight, r.obs, r.lane = 0, Obs{}, false
	r.closed = false
	r.process++
	return r.open(true)
}

// feedClosed takes what a closing subject reports after its commits: the
// close call's return and the other calls' failures. Its event bus is
// closed (nothing more is delivered), the aborted provider request's error
// event reaches a drive that can commit nothing, and no provider request
// may start.
func (r *runner) feedClosed(obs Obs) error {
	if len(obs.Requests) > 0 {
		return fmt.Errorf("subject: a provider request started after Harness.close")
	}
	for _, c := range obs.Calls {
		r.inflight--
		if c.OK {
			r.trace("call %s returned", c.Name)
		} else {
			r.trace("call %s failed: %s", c.Name, c.Error)
		}
		if c.Name == CallClose {
			if !c.OK {
				return fmt.Errorf("subject: Harness.close failed: %s", c.Error)
			}
			r.closeReturned = true
		}
	}
	for _, e := range obs.Events {
		if s, ok := eventString(e); ok {
			return fmt.Errorf("subject: event %s delivered after Harness.close", s)
		}
	}
	r.obs = obs
	return nil
}

// reopened: an operation restored at effect_pending awaits its recovery's
// activation (lanesim's check_restored.go pendingActivation).
func (r *runner) reopened() {
	r.restoredPoll()
	r.pendingActivation, r.snapshotSeen = "", false
	if op, ok := r.committedOp(); ok && op.At == ml.AtEffectPending {
		r.pendingActivation = op.ResponseEntryID
	}
}

// snapshotWeight: a snapshot between the reopen and the recovery's first
// commit is the moment the row is about.
func (r *runner) snapshotWeight() int {
	if r.pendingActivation != "" && !r.snapshotSeen {
		return 8
	}
	return 1
}

// piSnapshot is the part of pi's LaneSnapshot the runner compares.
type piSnapshot struct {
	Transcript []struct {
		ID string `json:"id"`
	} `json:"transcript"`
	Operation *struct {
		ID               string          `json:"id"`
		Status           string          `json:"status"`
		StreamingMessage json.RawMessage `json:"streamingMessage"`
	} `json:"operation"`
}

// checkSnapshot compares pi's snapshot, read on the lane's line after the
// commits fed so far, with model/lane's: the transcript's entry ids, the
// current operation, its status, and the streaming message (the committed
// frames' reduction for an operation at effect_pending).
func (r *runner) checkSnapshot(raw json.RawMessage) error {
	var got piSnapshot
	if err := json.Unmarshal(raw, &got); err != nil {
		return fmt.Errorf("subject: snapshot: %w", err)
	}
	want := r.o.m.Capture()
	ids := make([]string, len(got.Transcript))
	for i, e := range got.Transcript {
		ids[i] = e.ID
	}
	op, cancelled := r.o.m.Current()
	gotOp, gotStatus, gotMsg := "", "", ""
	if got.Operation != nil {
		gotOp, gotStatus = got.Operation.ID, got.Operation.Status
		if len(got.Operation.StreamingMessage) > 0 {
			gotMsg = ml.Canonical(got.Operation.StreamingMessage)
		}
	}
	wantStatus := ""
	if op != "" {
		wantStatus = "open"
		if cancelled {
			wantStatus = "aborting"
		}
	}
	r.trace("snapshot: %d entries, operation %s %s, streaming message %t", len(ids), gotOp, gotStatus, gotMsg != "")
	if !slices.Equal(ids, want.Transcript) || gotOp != op || gotStatus != wantStatus || gotMsg != want.StreamingMessage {
		return &Mismatch{Where: "snapshot (Lane.watch)", Err: fmt.Errorf("pi's snapshot differs from model/lane's\n subject: transcript %v operation %q %s message %s\n model:   transcript %v operation %q %s message %s",
			ids, gotOp, gotStatus, gotMsg, want.Transcript, op, wantStatus, want.StreamingMessage)}
	}
	if r.effectPending() && r.pendingActivation != "" {
		r.snapshotSeen = true
		r.race(lanesim.RowActivationSnap, lanesim.OrderSnapshotFirst)
	}
	return nil
}
