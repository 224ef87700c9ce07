package lanesim

import (
	"bytes"
	"errors"
	"fmt"
	"sort"

	"github.com/frameproof/frameproof/impl/frames"
	"github.com/frameproof/frameproof/impl/lane"
	"github.com/frameproof/frameproof/impl/pi"
	"github.com/frameproof/frameproof/impl/store"
	"github.com/frameproof/frameproof/sim/world"
)

// Invariant numbers refer to the seed's list (assistant-durability.md).

// laneNamespaces are the value namespaces compared between backend and
// reference.
var laneNamespaces = []string{lane.NSBranchTip, lane.NSLaneState, lane.NSResult, lane.NSOpMeta, lane.NSOpState}

// reconcileStore runs after every (re)open: an unacknowledged commit in
// flight at the crash may or may not have survived (the backend's next seq
// says which); then the backend must equal the reference exactly.
func (r *runner) reconcileStore() bool {
	survived := false
	if r.inflight != nil {
		if r.st.NextSeq() > r.ref.NextSeq() {
			survived = true
			r.fault("unacknowledged commit survived")
			ws := r.inflight
			r.inflight = nil
			prevOp, prevState := r.refOp()
			if _, err := r.ref.Commit(ws); err != nil {
				r.fail("store", "a surviving in-flight commit does not apply: %v", err)
				return false
			}
			for _, w := range ws {
				if w.Kind == store.WriteList {
					r.listKeys[store.PhysicalKey(w.Namespace, w.Key)] = store.Address{Namespace: w.Namespace, Key: w.Key, Kind: store.KindList}
				}
			}
			r.noteOps(ws)
			r.noteCommit(ws, prevOp, prevState)
			r.linz.commitOps(ws)
		}
		r.inflight = nil
	}
	if msg := r.diffStores(r.st.Storage, r.ref); msg != "" {
		r.fail("store", "after opening process %d the backend differs from the acknowledged commits: %s", r.gen, msg)
		return false
	}
	if r.gen > 1 && !r.ls.restart(survived) {
		return false
	}
	return true
}

// diffStores compares everything observable in the lane's namespaces.
func (r *runner) diffStores(got, want store.Storage) string {
	r.checks++
	if g, w := got.NextSeq(), want.NextSeq(); g != w {
		return fmt.Sprintf("nextSeq %d, want %d", g, w)
	}
	ge, err1 := got.Entries()
	we, err2 := want.Entries()
	if err1 != nil || err2 != nil {
		return fmt.Sprintf("entries: %v %v", err1, err2)
	}
	if len(ge) != len(we) {
		return fmt.Sprintf("%d entries, want %d", len(ge), len(we))
	}
	for i := range ge {
		if ge[i].Seq != we[i].Seq || ge[i].Entry.ID != we[i].Entry.ID || !bytes.Equal(ge[i].Entry.Raw, we[i].Entry.Raw) {
			return fmt.Sprintf("entry %d: %s@%d, want %s@%d", i, ge[i].Entry.ID, ge[i].Seq, we[i].Entry.ID, we[i].Seq)
		}
	}
	gu, _ := got.Usage()
	wu, _ := want.Usage()
	if len(gu) != len(wu) {
		return fmt.Sprintf("%d usage rows, want %d", len(gu), len(wu))
	}
	for i := range gu {
		if gu[i].Seq != wu[i].Seq || gu[i].Row.ID != wu[i].Row.ID || !bytes.Equal(gu[i].Row.Raw, wu[i].Row.Raw) {
			return fmt.Sprintf("usage %d: %s@%d, want %s@%d", i, gu[i].Row.ID, gu[i].Seq, wu[i].Row.ID, wu[i].Seq)
		}
	}
	for _, ns := range laneNamespaces {
		gv, _ := got.ScanValues(ns, "")
		wv, _ := want.ScanValues(ns, "")
		if len(gv) != len(wv) {
			return fmt.Sprintf("%s: %d values, want %d", ns, len(gv), len(wv))
		}
		for i := range gv {
			if gv[i].Address.Key != wv[i].Address.Key || gv[i].Seq != wv[i].Seq || !bytes.Equal(gv[i].Value, wv[i].Value) {
				return fmt.Sprintf("%s/%s@%d differs from %s@%d", ns, gv[i].Address.Key, gv[i].Seq, wv[i].Address.Key, wv[i].Seq)
			}
		}
	}
	for _, k := range r.sortedListKeys() {
		a := r.listKeys[k]
		gl, err1 := got.ReadList(a, store.ReadOptions{Limit: 10_000})
		wl, err2 := want.ReadList(a, store.ReadOptions{Limit: 10_000})
		if err1 != nil || err2 != nil {
			return fmt.Sprintf("list %s: %v %v", a.Key, err1, err2)
		}
		if len(gl) != len(wl) {
			return fmt.Sprintf("list %s: %d elements, want %d", a.Key, len(gl), len(wl))
		}
		for i := range gl {
			if gl[i].Seq != wl[i].Seq || !bytes.Equal(gl[i].Value, wl[i].Value) {
				return fmt.Sprintf("list %s element %d: seq %d, want %d", a.Key, i, gl[i].Seq, wl[i].Seq)
			}
		}
	}
	return ""
}

func (r *runner) sortedListKeys() []string {
	ks := make([]string, 0, len(r.listKeys))
	for k := range r.listKeys {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// checkRestored runs on a reopened lane (invariant 1 is checked by
// sim/invariants with View.Restored, the rest by the lockstep model):
// race bookkeeping, fork/migration checks and reconnecting clients.
func (r *runner) checkRestored() {
	_, st := r.refOp()
	r.check(r.ln.Current() != nil || st == nil, "recovery", "restored lane is idle while the committed state has an operation")
	r.pendingActivation, r.pendingPoll = "", ""
	if st != nil && st.At == lane.LeafAssistantEffectPending {
		r.pendingActivation = st.ResponseEntryID
	}
	if st != nil && st.At == lane.LeafDeferredEffectPending {
		r.pendingPoll = st.ResponseEntryID
	}
	if st != nil && st.At.IsEffectPending() && r.p.forkMigrate {
		r.checkForkMigrate()
	}
	if st != nil && st.At.IsEffectPending() {
		// a reconnecting client may look before activation gets to run
		if r.p.snapshots > 0 && boolChoice(r, "reconnect-snapshot") {
			r.snapshotNow("reconnect")
		}
		if r.p.canceller && boolChoice(r, "reconnect-cancel") {
			var hf *lane.HarnessFault
			r.ls.beginAbort()
			// a closer may have closed the lane meanwhile (as the canceller
			// actor allows)
			if err := r.ln.RequestCancel(); err != nil && !(errors.As(err, &hf) && r.injected) && !errors.Is(err, world.ErrCrashed) && !errors.Is(err, lane.ErrClosed) {
				r.fail("invariant", "request cancel on reconnect: %v", err)
			}
		}
	}
}

// checkStreamOpen: unknown generation vs retry — a later attempt starts
// only after the previous reserved response settled (synthetic or not).
func (r *runner) checkStreamOpen(s *simStream) {
	// (an external finalization may already have ended the operation: the
	// request then runs for nothing and its appends are fenced)
	r.check(r.intents[s.req.ResponseEntryID], "invariant", "I1: provider request for %s without its committed intent", s.req.ResponseEntryID)
	if prev := r.lastResp[s.req.OperationID]; prev != "" && prev != s.req.ResponseEntryID && s.req.Deferred == nil {
		found := false
		es, _ := r.ref.Entries()
		for _, e := range es {
			found = found || e.Entry.ID == prev
		}
		r.check(found || r.finalized[s.req.OperationID], "invariant", "attempt for %s started before the earlier reserved response %s settled", s.req.ResponseEntryID, prev)
	}
	r.lastResp[s.req.OperationID] = s.req.ResponseEntryID
}

// noteCommit runs on every acknowledged commit, with the reference's
// current operation before the commit: race bookkeeping and the porcupine
// history of settlements. What a settlement must write (reserved ids, zero
// synthetic usage, cancellation wins, the frame list deleted, no tool plan
// from an interrupted response) is checked by the lockstep model and
// sim/invariants.
func (r *runner) noteCommit(ws []store.Write, prevOp string, prev *lane.OpState) {
	for _, w := range ws {
		if w.Kind != store.WriteEntry || w.Entry == nil || !isAssistantEntry(w.Entry.Raw) {
			continue
		}
		if m := entryMessage(w.Entry.Raw); m != nil && m.StopReason == pi.StopPending {
			// session/session.ts refuses it; the lane must fault instead
			r.fail("invariant", "a pending assistant message was committed as entry %s", w.Entry.ID)
		}
		if prev == nil || !prev.At.IsEffectPending() {
			continue // the model reports a settlement without a pending response
		}
		id := w.Entry.ID
		var next *lane.OpState
		for _, w := range ws {
			if w.Kind == store.WriteValue && w.Op == store.OpSet && w.Namespace == lane.NSOpState {
				next, _ = lane.DecodeState(w.Value)
			}
		}
		if r.synthetic(id) {
			if !prev.Control.CancelRequested && prev.At == lane.LeafAssistantEffectPending {
				if next != nil && next.At == lane.LeafAssistantRetryWait {
					r.race(RowUnknownRetry, OrderSyntheticThenRetry)
				} else if next == nil {
					r.race(RowUnknownRetry, OrderSyntheticThenFailAtCap)
				}
			}
			if r.pendingActivation == id {
				r.race(RowActivationSnap, OrderActivationFirst)
				r.pendingActivation = ""
			}
		} else {
			if s := r.streams[id]; s != nil {
				s.settled = true
			}
			if len(r.tracks[id]) > 0 {
				r.race(RowFinalFrame, OrderSettledInProcess)
			}
		}
		r.linz.settled(prevOp, id)
	}
}

// synthetic reports whether response id settles without a live stream this
// process finished (recovery or cancellation reconciliation).
func (r *runner) synthetic(id string) bool {
	s := r.streams[id]
	return !(s != nil && s.ended && r.cur == s)
}

func describe(op string, st *lane.OpState) string {
	if st == nil {
		if op == "" {
			return "idle"
		}
		return op + " without state"
	}
	s := op + " at " + string(st.At)
	if st.At.IsEffectPending() {
		s += " (response " + st.ResponseEntryID + ")"
	}
	return s
}

// onFrame follows the frame pipeline: race rows 1, 3, 4, the porcupine
// history and the model/frames check of every committed prefix (the frame
// rules themselves — no terminal frames, FIFO, fence — are the lockstep
// model's and sim/invariants' 4 and 5).
func (r *runner) onFrame(fr lane.FrameRecord) {
	if !r.alive() {
		return
	}
	r.ls.onFrame(fr)
	r.logFrame(fr)
	if r.failed {
		return
	}
	resp := fr.ResponseEntryID
	switch fr.Outcome {
	case lane.FrameEnqueued:
		ts := r.tracks[resp]
		if n := len(ts); n > 0 && ts[n-1].gen == r.gen {
			if ts[n-1].outcome == lane.FrameCommitted {
				r.race(RowAppendNext, OrderCommittedBeforeNext)
			} else if ts[n-1].outcome == lane.FrameEnqueued {
				r.race(RowAppendNext, OrderNextQueuedBehind)
			}
		}
		r.tracks[resp] = append(ts, &frameTrack{rec: fr, outcome: lane.FrameEnqueued, gen: r.gen})
		r.linz.appendCall(fr)
		return
	}
	var t *frameTrack
	for _, c := range r.tracks[resp] {
		if c.outcome == lane.FrameEnqueued && c.rec.EventIndex == fr.EventIndex && c.gen == r.gen {
			t = c
			break
		}
	}
	if t == nil {
		return // FrameFailed, or the model already reported it
	}
	t.outcome, t.seq = fr.Outcome, fr.Seq
	r.linz.appendReturn(fr)
	switch fr.Outcome {
	case lane.FrameCommitted:
		if r.delivered[resp][fr.EventIndex] {
			r.race(RowUpdateCommit, OrderEventFirst)
		} else {
			r.race(RowUpdateCommit, OrderCommitFirst)
		}
		r.checkCommittedPrefix(fr)
	case lane.FrameDeclined:
		if r.finalized[fr.OperationID] {
			r.race(RowAppendFinalize, OrderFinalizeFirst)
		}
	}
}

// checkCommittedPrefix: the committed list reduces to what the model
// observer says a reader must see after the event of the last committed
// frame (model/frames on the events the lane actually consumed).
func (r *runner) checkCommittedPrefix(fr lane.FrameRecord) {
	s := r.streams[fr.ResponseEntryID]
	if s == nil || fr.EventIndex >= len(s.observed) {
		r.fail("model", "committed frame for event %d of %s that the provider never delivered", fr.EventIndex, fr.ResponseEntryID)
		return
	}
	els, err := r.ref.ReadList(lane.FramesAddr(fr.OperationID, fr.ResponseEntryID), store.ReadOptions{Limit: 10_000})
	if err != nil {
		r.fail("model", "read frames: %v", err)
		return
	}
	if len(els) == 0 || els[len(els)-1].Seq != fr.Seq {
		r.fail("model", "frame committed at seq %d is not the tail of %s:%s", fr.Seq, fr.OperationID, fr.ResponseEntryID)
		return
	}
	got, err := reduceElements(els)
	if err != nil {
		r.fail("model", "committed frames of %s do not reduce: %v", fr.ResponseEntryID, err)
		return
	}
	want := s.observed[fr.EventIndex]
	r.check(marshalMsg(got) == want, "model", "committed prefix of %s after event %d reduces to\n%s\nthe model observer says\n%s", fr.ResponseEntryID, fr.EventIndex, marshalMsg(got), want)
}

// committedReduction reduces every committed frame of op/resp in the
// reference store (all pages). A read or reduce error fails the run: the
// reference holds only frames the encoder wrote, so either is a finding,
// never a reason to skip the check.
func (r *runner) committedReduction(op, resp, where string) (*pi.AssistantMessage, bool) {
	const page = 10_000
	var els []store.ListElement
	var cursor *int64
	for {
		got, err := r.ref.ReadList(lane.FramesAddr(op, resp), store.ReadOptions{Cursor: cursor, Limit: page})
		if err != nil {
			r.fail("invariant", "%s: read the committed frames of %s: %v", where, resp, err)
			return nil, false
		}
		els = append(els, got...)
		if len(got) < page {
			break
		}
		last := got[len(got)-1].Seq
		cursor = &last
	}
	m, err := reduceElements(els)
	if err != nil {
		r.fail("invariant", "%s: the committed frames of %s do not reduce: %v", where, resp, err)
		return nil, false
	}
	return m, true
}

func reduceElements(els []store.ListElement) (*pi.AssistantMessage, error) {
	fs := make([]pi.Frame, 0, len(els))
	for _, e := range els {
		f, err := pi.ParseFrame(string(e.Value))
		if err != nil {
			return nil, err
		}
		fs = append(fs, *f)
	}
	return frames.Reduce(fs)
}

// afterResponse: the model says whether the hook may run now (only for a
// live stream this process finished, once, after every accepted append
// settled); invariant 6 checks the drain at message_end.
func (r *runner) afterResponse(m *pi.AssistantMessage) (*pi.AssistantMessage, error) {
	if r.alive() {
		r.ls.afterResponse()
	}
	return m, nil
}

// checkSnapshot runs on snapshots taken at any scheduling point: a live
// partial only while this process owns the stream; otherwise for
// effect_pending the reduction of the committed frames (the same prefix
// activation reads); invariant 9 via sim/invariants. (Snapshots at step
// ends and reopens are also compared with the lockstep model.)
func (r *runner) checkSnapshot(ln *lane.Lane, snap *lane.Snapshot) {
	st := snap.State
	if snap.Live {
		// Owned: this healthy process still consumes the stream, has not
		// settled it, and the stream still holds the fence. After an
		// external finalization the loop keeps consuming its (now fenced)
		// stream, but like pi's client fold the snapshot no longer shows it.
		c := r.cur
		owned := ln.Fault() == nil && !r.closed && c != nil && !c.settled &&
			st != nil && st.At.IsEffectPending() && c.req.ResponseEntryID == st.ResponseEntryID
		r.check(owned, "invariant", "snapshot shows a live partial the process does not own (state %s)", describe(snap.OperationID, st))
	}
	if !r.checkInvariants("snapshot", snap, nil) {
		return
	}
	if st != nil && st.At.IsEffectPending() {
		if !snap.Live {
			if want, ok := r.committedReduction(snap.OperationID, st.ResponseEntryID, "snapshot"); ok {
				r.check(marshalMsg(snap.StreamingMessage) == marshalMsg(want), "invariant", "snapshot partial of %s is not the committed prefix:\n%s\nwant\n%s", st.ResponseEntryID, marshalMsg(snap.StreamingMessage), marshalMsg(want))
			}
			if r.pendingActivation == st.ResponseEntryID {
				r.race(RowActivationSnap, OrderSnapshotFirst)
			}
		}
	}
}

// finalChecks: recovery liveness (every operation settled), the invariants
// over the whole run (12: no frame list left), and a power loss after the run recovers exactly the
// acknowledged state.
func (r *runner) finalChecks() {
	if r.failed {
		return
	}
	op, st := r.refOp()
	r.check(op == "" && st == nil, "liveness", "run ended with operation %s unsettled", describe(op, st))
	r.check(r.resultsCount() >= r.p.ops, "liveness", "%d of %d operations settled", r.resultsCount(), r.p.ops)
	if !r.checkInvariants("end of run", nil, nil) {
		return
	}
	// power loss after a clean close, then recovery
	r.closing, r.closed = true, true
	if err := r.ln.Close(); err != nil {
		r.fail("invariant", "final close: %v", err)
		return
	}
	r.proc.Crash()
	r.fault("final " + r.be.crash())
	if !r.startProcess() {
		return
	}
	r.checkWire()
	if r.p.forkMigrate {
		r.checkForkMigrate()
	}
	r.closing = true
	_ = r.ln.Close()
	r.proc.Crash()
}

func boolChoice(r *runner, label string) bool {
	return r.w.Intn(label, 2) == 1
}

func choiceBool(w interface{ Intn(string, int) int }, label string) bool {
	return w.Intn(label, 2) == 1
}

// startClientFold starts a watching client on ln from a fresh capture.
func (r *runner) startClientFold(ln *lane.Lane) bool {
	c, err := ln.Capture()
	if err != nil {
		r.fail("invariant", "client capture: %v", err)
		return false
	}
	r.fold, r.foldCaptured = lane.NewClientFold(c), c.StreamingMessage != nil
	return true
}

// checkClientFold: once every stream of a healthy lane has delivered its
// message_end, a client folding pi's reduceLaneSnapshot shows no streaming
// message; and it follows the lane's current operation, which it learnt
// from a capture or from the operation's run_start. (A fold still showing
// an operation the lane no longer has is not checked: an external
// finalization may have committed and not yet emitted run_end.)
func (r *runner) checkClientFold(where string) bool {
	f := r.fold
	if f == nil || r.ln.Fault() != nil || r.closing || r.closed {
		return true
	}
	if cur := r.ln.Current(); cur != nil && !r.check(f.OperationID == cur.ID, "invariant",
		"%s: the client fold follows operation %q, the lane's current operation is %s (no run_start?)", where, f.OperationID, cur.ID) {
		return false
	}
	if r.foldCaptured || r.openMessages != 0 {
		return true
	}
	return r.check(f.StreamingMessage == nil, "invariant", "%s: the client fold keeps a streaming message after its stream ended:\n%s", where, marshalMsg(f.StreamingMessage))
}

// checkCapture: pi's captureLaneSnapshot shows, for an effect_pending
// response, the reduction of its committed frames, whatever the live stream
// has reached.
func (r *runner) checkCapture(ln *lane.Lane, who string) {
	c, err := ln.Capture()
	if err != nil {
		r.fail("invariant", "capture (%s): %v", who, err)
		return
	}
	r.check(!c.Live, "invariant", "capture (%s) shows the live partial", who)
	var want *pi.AssistantMessage
	if st := c.State; st != nil && st.At.IsEffectPending() {
		var ok bool
		if want, ok = r.committedReduction(c.OperationID, st.ResponseEntryID, "capture ("+who+")"); !ok {
			return
		}
	}
	r.check(marshalMsg(c.StreamingMessage) == marshalMsg(want), "invariant", "capture (%s) is not the committed reduction:\n%s\nwant\n%s", who, marshalMsg(c.StreamingMessage), marshalMsg(want))
}
