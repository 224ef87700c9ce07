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
			r.checkCommit(ws, prevOp, prevState)
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

// checkRestored: invariant 1 — the restored process's operation is exactly
// the committed scalar state (frames never select the restart point).
func (r *runner) checkRestored() {
	op, st := r.refOp()
	cur := r.ln.Current()
	switch {
	case cur == nil:
		r.check(op == "", "invariant", "I1: restored lane is idle but operation %s is current", op)
	default:
		ok := cur.ID == op && st != nil && bytes.Equal(lane.MarshalState(cur.State), lane.MarshalState(st))
		r.check(ok, "invariant", "I1: restored operation %s differs from the committed state of %s", cur.ID, op)
	}
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
			if err := r.ln.RequestCancel(); err != nil && !(errors.As(err, &hf) && r.injected) && !errors.Is(err, world.ErrCrashed) {
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

// checkCommit runs on every acknowledged commit, with the reference's
// current operation before the commit.
func (r *runner) checkCommit(ws []store.Write, prevOp string, prev *lane.OpState) {
	for _, w := range ws {
		switch {
		case w.Kind == store.WriteList && w.Op == store.OpAppend && w.Namespace == lane.NSAssistantFrame:
			// I2 + the fence: appends only to the current effect_pending's exact list.
			ok := prev != nil && prev.At.IsEffectPending() && w.Key == prevOp+":"+prev.ResponseEntryID
			if !r.check(ok, "invariant", "I2/fence: frame appended to %s while the operation is %s", w.Key, describe(prevOp, prev)) {
				return
			}
			// I3
			if _, err := pi.ParseFrame(string(w.Value)); !r.check(err == nil, "invariant", "I3: stored element is not a frame: %v", err) {
				return
			}
		case w.Kind == store.WriteEntry && w.Entry != nil:
			m := entryMessage(w.Entry.Raw)
			if m == nil {
				continue
			}
			r.checkSettlement(ws, w.Entry.ID, m, prevOp, prev)
		}
	}
	if r.failed {
		return
	}
	r.checkLists()
}

// checkSettlement: the commit inserting an assistant entry settles the
// reserved response (I8, recovery ids, zero usage, cancellation wins, I7,
// I10).
func (r *runner) checkSettlement(ws []store.Write, id string, m *pi.AssistantMessage, prevOp string, prev *lane.OpState) {
	if !r.check(prev != nil && prev.At.IsEffectPending(), "invariant", "settlement of %s while the operation is %s", id, describe(prevOp, prev)) {
		return
	}
	if !r.check(id == prev.ResponseEntryID, "invariant", "settlement under id %s, reserved %s", id, prev.ResponseEntryID) {
		return
	}
	var usageID string
	var usageRaw []byte
	deletes := false
	var next *lane.OpState
	for _, w := range ws {
		switch {
		case w.Kind == store.WriteUsage && w.Usage != nil:
			usageID, usageRaw = w.Usage.ID, w.Usage.Raw
		case w.Kind == store.WriteList && w.Op == store.OpDelete && w.Key == prevOp+":"+id:
			deletes = true
		case w.Kind == store.WriteValue && w.Op == store.OpSet && w.Namespace == lane.NSOpState:
			next, _ = lane.DecodeState(w.Value)
		}
	}
	r.check(usageID == prev.UsageID, "invariant", "settlement usage id %s, reserved %s", usageID, prev.UsageID)
	r.check(deletes, "invariant", "I8: settlement of %s does not delete its frame list", id)
	live := !r.synthetic(id)
	if prev.Control.CancelRequested {
		r.check(m.StopReason == pi.StopAborted, "invariant", "cancelled operation settled %s as %q (cancellation must win)", id, m.StopReason)
	}
	if !live {
		// synthetic: recovery or cancellation reconciliation
		r.check(m.StopReason == pi.StopError || m.StopReason == pi.StopAborted, "invariant", "I7: synthetic response %s stops with %q", id, m.StopReason)
		r.check(m.Usage == lane.ZeroUsage(), "invariant", "synthetic response %s has usage %+v", id, m.Usage)
		r.check(!bytes.Contains(usageRaw, []byte(`"totalTokens":`)) || bytes.Contains(usageRaw, []byte(`"totalTokens":0`)), "invariant", "synthetic usage row %s is not zero: %s", usageID, usageRaw)
		r.check(next == nil || next.At != lane.LeafTools, "invariant", "I10: synthetic response %s produced a tool plan", id)
		if !prev.Control.CancelRequested && prev.At == lane.LeafAssistantEffectPending {
			if next != nil && next.At == lane.LeafAssistantRetryWait {
				r.race(RowUnknownRetry, "synthetic-then-retry")
			} else if next == nil {
				r.race(RowUnknownRetry, "synthetic-then-fail-at-cap")
			}
		}
		if r.pendingActivation == id {
			r.race(RowActivationSnap, "activation-first")
			r.pendingActivation = ""
		}
	} else {
		r.streams[id].settled = true
		if len(r.tracks[id]) > 0 {
			r.race(RowFinalFrame, "settled-in-process")
		}
	}
	r.linz.settled(prevOp, id)
}

// synthetic reports whether response id settles without a live stream this
// process finished (recovery or cancellation reconciliation).
func (r *runner) synthetic(id string) bool {
	s := r.streams[id]
	return !(s != nil && s.ended && r.cur == s)
}

// checkLists: I2, I8, I12 — every non-empty frame list in the reference
// belongs to the current operation's effect_pending response; every element
// is a frame (I3) and the list reduces (one start, I4).
func (r *runner) checkLists() {
	op, st := r.refOp()
	for _, k := range r.sortedListKeys() {
		a := r.listKeys[k]
		if a.Namespace != lane.NSAssistantFrame {
			continue
		}
		els, err := r.ref.ReadList(a, store.ReadOptions{Limit: 10_000})
		if err != nil || len(els) == 0 {
			continue
		}
		owned := st != nil && st.At.IsEffectPending() && a.Key == op+":"+st.ResponseEntryID
		if !r.check(owned, "invariant", "I12/I8: frame list %s (%d elements) survives while the operation is %s", a.Key, len(els), describe(op, st)) {
			return
		}
		fs := make([]pi.Frame, 0, len(els))
		for _, e := range els {
			f, err := pi.ParseFrame(string(e.Value))
			if !r.check(err == nil, "invariant", "I3: %s seq %d is not a frame: %v", a.Key, e.Seq, err) {
				return
			}
			fs = append(fs, *f)
		}
		_, err = frames.Reduce(fs)
		r.check(err == nil, "invariant", "I4: frame list %s does not reduce: %v", a.Key, err)
	}
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

// onFrame follows the frame pipeline: I4 (no terminal frames), I5 (commit
// order is provider order), race rows 1, 3, 4 and the model check of every
// committed prefix.
func (r *runner) onFrame(fr lane.FrameRecord) {
	if !r.alive() {
		return
	}
	r.ls.onFrame(fr)
	resp := fr.ResponseEntryID
	switch fr.Outcome {
	case lane.FrameEnqueued:
		r.check(fr.EventType != pi.EventDone && fr.EventType != pi.EventError, "invariant", "I4: a frame was enqueued for the terminal %s event of %s", fr.EventType, resp)
		ts := r.tracks[resp]
		if n := len(ts); n > 0 && ts[n-1].gen == r.gen {
			if ts[n-1].outcome == lane.FrameCommitted {
				r.race(RowAppendNext, "committed-before-next")
			} else if ts[n-1].outcome == lane.FrameEnqueued {
				r.race(RowAppendNext, "next-queued-behind")
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
	if !r.check(t != nil, "invariant", "frame outcome %s for %s event %d without an enqueued frame", fr.Outcome, resp, fr.EventIndex) {
		return
	}
	// FIFO: nothing enqueued earlier in this process may still be open.
	for _, c := range r.tracks[resp] {
		if c == t {
			break
		}
		if c.gen == r.gen && c.outcome == lane.FrameEnqueued {
			r.fail("invariant", "I5/I6: frame for event %d settled before the earlier frame for event %d", fr.EventIndex, c.rec.EventIndex)
			return
		}
	}
	t.outcome, t.seq = fr.Outcome, fr.Seq
	r.linz.appendReturn(fr)
	switch fr.Outcome {
	case lane.FrameCommitted:
		if r.delivered[resp][fr.EventIndex] {
			r.race(RowUpdateCommit, "event-first")
		} else {
			r.race(RowUpdateCommit, "commit-first")
		}
		r.checkCommittedPrefix(fr)
	case lane.FrameDeclined:
		if r.finalized[fr.OperationID] {
			r.race(RowAppendFinalize, "finalize-first")
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

// onEvent checks the public event order of one response (seed §Events) and
// that entry_added follows the commit.
func (r *runner) onEvent(ev lane.Event) {
	prev := r.lifecycle
	bad := func() {
		r.fail("events", "%s (recovery=%v) after %q", ev.Type, ev.Recovery, prev)
	}
	switch ev.Type {
	case lane.EvTurnStart, lane.EvRunEnd:
		// a stale settlement (finalized meanwhile) ends a lifecycle at "end"
		r.lifecycle = ""
	case lane.EvMessageStart:
		if prev != "" && prev != "usage" {
			bad()
			return
		}
		r.lifecycle = "start"
	case lane.EvMessageUpdate:
		if prev != "start" && prev != "update" {
			bad()
			return
		}
		r.lifecycle = "update"
	case lane.EvMessageEnd:
		if prev == "end" || prev == "entry" {
			bad()
			return
		}
		r.lifecycle = "end"
	case lane.EvEntryAdded:
		if prev != "end" {
			bad()
			return
		}
		r.lifecycle = "entry"
		found := false
		es, _ := r.st.Entries()
		for _, e := range es {
			found = found || e.Entry.ID == ev.EntryID
		}
		r.check(found, "events", "entry_added for %s before the entry committed", ev.EntryID)
		if ev.Recovery && ev.Message != nil && r.synthetic(ev.EntryID) {
			r.check(ev.Message.StopReason == pi.StopError || ev.Message.StopReason == pi.StopAborted, "invariant", "I7: recovery settled %s as %q", ev.EntryID, ev.Message.StopReason)
		}
	case lane.EvUsage:
		if prev != "entry" {
			bad()
			return
		}
		r.lifecycle = "usage"
		if ev.Recovery && ev.Usage != nil && r.synthetic(ev.EntryID) {
			r.check(*ev.Usage == lane.ZeroUsage(), "invariant", "synthetic usage %+v", *ev.Usage)
		}
	}
}

// afterResponse: the hook runs only for a live stream this process
// finished, once, and only after every accepted frame append settled (I6).
func (r *runner) afterResponse(m *pi.AssistantMessage) (*pi.AssistantMessage, error) {
	if !r.alive() {
		return m, nil
	}
	r.ls.afterResponse()
	s := r.cur
	if !r.check(s != nil && s.ended && !s.hooked, "invariant", "after_response ran without a finished live stream (recovery or a second run)") {
		return m, nil
	}
	s.hooked = true
	open := 0
	for _, t := range r.tracks[s.req.ResponseEntryID] {
		if t.gen == r.gen && t.outcome == lane.FrameEnqueued {
			open++
		}
	}
	r.check(open == 0, "invariant", "I6: after_response ran with %d frame appends of %s still queued", open, s.req.ResponseEntryID)
	return m, nil
}

// checkSnapshot: a live partial only while this process owns the stream;
// otherwise for effect_pending the reduction of the committed frames (the
// same prefix activation reads); the partial never in the transcript (I9).
func (r *runner) checkSnapshot(ln *lane.Lane, snap *lane.Snapshot) {
	st := snap.State
	if snap.Live {
		// Owned: this healthy process still consumes the stream and has not
		// settled it. After an external finalization the loop keeps
		// consuming its (now fenced) stream until it ends, so a live
		// partial without an operation is allowed then, and only then.
		c := r.cur
		owned := ln.Fault() == nil && !r.closed && c != nil && !c.settled &&
			((st != nil && st.At.IsEffectPending() && c.req.ResponseEntryID == st.ResponseEntryID) ||
				(r.finalizing[c.req.OperationID] && snap.OperationID != c.req.OperationID))
		r.check(owned, "invariant", "snapshot shows a live partial the process does not own (state %s)", describe(snap.OperationID, st))
	}
	if st != nil && st.At.IsEffectPending() {
		for _, e := range snap.Transcript {
			if !r.check(e.ID != st.ResponseEntryID, "invariant", "I9: pending response %s is in the transcript", e.ID) {
				return
			}
		}
		if !snap.Live {
			els, _ := r.ref.ReadList(lane.FramesAddr(snap.OperationID, st.ResponseEntryID), store.ReadOptions{Limit: 10_000})
			want, err := reduceElements(els)
			if err == nil {
				r.check(marshalMsg(snap.StreamingMessage) == marshalMsg(want), "invariant", "snapshot partial of %s is not the committed prefix:\n%s\nwant\n%s", st.ResponseEntryID, marshalMsg(snap.StreamingMessage), marshalMsg(want))
			}
			if r.pendingActivation == st.ResponseEntryID {
				r.race(RowActivationSnap, "snapshot-first")
			}
		}
	}
}

// finalChecks: recovery liveness (every operation settled), no frame list
// left (I12), and a power loss after the run recovers exactly the
// acknowledged state.
func (r *runner) finalChecks() {
	if r.failed {
		return
	}
	op, st := r.refOp()
	r.check(op == "" && st == nil, "liveness", "run ended with operation %s unsettled", describe(op, st))
	r.check(r.resultsCount() >= r.p.ops, "liveness", "%d of %d operations settled", r.resultsCount(), r.p.ops)
	for _, k := range r.sortedListKeys() {
		a := r.listKeys[k]
		els, _ := r.ref.ReadList(a, store.ReadOptions{Limit: 10})
		r.check(len(els) == 0, "invariant", "I12: frame list %s survives the run", a.Key)
	}
	if r.failed {
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
