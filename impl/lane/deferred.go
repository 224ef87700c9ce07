package lane

import (
	"fmt"

	"github.com/frameproof/frameproof/impl/pi"
	"github.com/frameproof/frameproof/impl/store"
)

// sourceHandle reads the deferred source entry's handle (readDeferredSourceHandle).
func (l *Lane) sourceHandle(d *OpState) (*pi.DeferredHandle, string, error) {
	entries, err := l.cfg.Storage.Entries()
	if err != nil {
		return nil, "", err
	}
	for _, e := range entries {
		if e.Entry.ID != d.SourceEntryID {
			continue
		}
		v, err := pi.ParseJSON(string(e.Entry.Raw))
		if err == nil && v.Kind() == pi.Object {
			mv, _ := v.ObjectValue().Get("message")
			if m, err := pi.DecodeAssistantMessage(mv, "entry.message"); err == nil && m.StopReason == pi.StopDeferred && m.Deferred != nil {
				h := m.Deferred
				id := d.Configuration.Model
				if h.ID == "" || h.Provider != id.Provider || h.ModelID != id.ModelID || h.API != m.API {
					return nil, "", fmt.Errorf("Deferred source %s has an invalid handle", d.SourceEntryID)
				}
				return h, m.API, nil
			}
		}
		break
	}
	return nil, "", fmt.Errorf("Deferred source %s is missing its assistant handle", d.SourceEntryID)
}

// readSource reads the source handle on the line, permit or not
// (runtime/drive/deferred.ts readSourceHandle: lane.continueOperation): an
// operation an external Finalize removed since the step read it faults the
// harness with pi's null read (lostOperation); one that moved on or was
// cancelled meanwhile is not current, and the step reports progress. An
// invalid handle faults with readDeferredSourceHandle's message.
func (l *Lane) readSource(op string, d *OpState) (*pi.DeferredHandle, bool, error) {
	var handle *pi.DeferredHandle
	var current bool
	_, _, err := l.command(CmdDeferredSource, func(cur view) (plan, error) {
		if cur.op == nil || cur.op.ID != op || cur.op.State.At != d.At || cur.op.State.ResponseEntryID != d.ResponseEntryID ||
			cur.op.State.Control.CancelRequested {
			return plan{}, l.lostOperation(cur)
		}
		h, _, err := l.sourceHandle(d)
		handle, current = h, err == nil
		return plan{}, err
	})
	return handle, current, err
}

// pollDeferred polls a suspended deferred response, or replaces an orphaned
// unknown-outcome poll, when this pass carries a permit. Without a permit it
// waits (the snapshot may still show the orphan's durable partial), after
// reading the source handle on the line as pi does either way. The
// replacement intent deletes the abandoned list in the same transaction and
// the fresh response id gets a fresh list.
func (l *Lane) pollDeferred(op string, d *OpState, permit bool) (StepResult, error) {
	handle, current, err := l.readSource(op, d)
	if err != nil || !current {
		return StepResult{Kind: StepProgress}, err
	}
	if !permit {
		return StepResult{Kind: StepWaiting, Reason: "deferred"}, nil
	}
	// deferred.ts prepareDeferredPoll: with a permit, a model the registry
	// does not know fails the run (publishConfigurationFailure)
	if opErr := l.modelUnavailable(d.Configuration.Model); opErr != nil {
		return l.failConfiguration(op, d, opErr)
	}
	recovery := d.At == LeafDeferredEffectPending
	intent := d.scope(LeafDeferredEffectPending)
	intent.StepID, intent.SourceEntryID, intent.Poll = d.StepID, d.SourceEntryID, d.Poll
	if d.At == LeafDeferredSuspended {
		intent.Poll = d.Poll + 1
	}
	intent.ResponseEntryID, intent.UsageID = l.cfg.IDs.NewID(), l.cfg.IDs.NewID()
	cfg := *d.Configuration
	intent.Configuration, intent.StreamOptions = &cfg, d.StreamOptions
	_, committed, err := l.command(CmdPollIntent, thenEmit(func(cur view) (plan, error) {
		if cur.op == nil || cur.op.ID != op || cur.op.State.At != d.At || cur.op.State.ResponseEntryID != d.ResponseEntryID ||
			cur.op.State.Control.CancelRequested {
			return plan{}, l.lostOperation(cur)
		}
		var writes []store.Write
		if recovery && !l.cfg.bugs.on(bugReplacementKeepsOldFrames) {
			writes = append(writes, store.DeleteListRaw(FramesAddr(op, d.ResponseEntryID)))
		}
		st := intent.Clone()
		st.Control, st.Settings, st.LatestAssistantEntryID = cur.op.State.Control, cur.op.State.Settings, cur.op.State.LatestAssistantEntryID
		intent = st
		next := cur.clone()
		next.op.State = st
		writes = append(writes, store.SetValueRaw(OpStateAddr(op), MarshalState(st)))
		return plan{commit: true, writes: writes, next: next}, nil
	}, func(store.CommitResult) []Event {
		return []Event{{Type: EvRunResume, RunID: op, Recovery: recovery},
			{Type: EvTurnStart, RunID: op, Recovery: recovery, TurnID: intent.StepID + ":poll:" + itoa(intent.Poll)}}
	}))
	if err != nil || !committed {
		return StepResult{Kind: StepProgress}, err
	}
	// deferred.ts performDeferredPoll: drive.gate.admit(() => streamDeferred(…))
	signal, aborting, err := l.admitRequest(op)
	if err != nil {
		return StepResult{}, err
	}
	if aborting != nil {
		return awaitCancellation(aborting)
	}
	req := Request{OperationID: op, ResponseEntryID: intent.ResponseEntryID, Model: cfg.Model, Deferred: handle,
		Poll: intent.Poll, Abort: signal}
	l.setLive(op, intent.ResponseEntryID, nil)
	msg, err := l.respond(req, recovery)
	if err != nil {
		l.dropLive(intent.ResponseEntryID)
		return StepResult{}, err
	}
	r, err := l.settle(op, intent, msg, recovery, false, nil)
	l.dropLive(intent.ResponseEntryID)
	return r, err
}
