package lane

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/frameproof/frameproof/impl/pi"
)

// TranscriptEntry is one committed entry on the lane's branch.
type TranscriptEntry struct {
	ID       string
	ParentID *string
	Seq      int64
	Raw      json.RawMessage
}

// Snapshot is LaneSnapshot: the committed transcript along the branch tip
// and the latest observed partial, which is never part of the transcript.
type Snapshot struct {
	Lane        string
	TipID       *string
	Transcript  []TranscriptEntry
	OperationID string
	State       *OpState
	// StreamingMessage: the live partial while its stream still owns the
	// fence (the operation is current at assistant/deferred effect_pending
	// with the stream's responseEntryId); else, for assistant/deferred
	// effect_pending, the reduction of the committed frames (budgeted); else
	// nil.
	StreamingMessage *pi.AssistantMessage
	// StreamingRaw is the reduction of the committed frames when no typed
	// message can hold it (StreamingMessage is then nil): what pi's
	// captureLaneSnapshot shows for a text_end stored without content or a
	// start partial that is not an object (see reduceStored).
	StreamingRaw pi.JSONValue
	// Live reports that StreamingMessage came from an owned stream.
	Live bool
	// FramesTruncated reports that the durable reduction hit the budget.
	FramesTruncated bool
	// Queues are the lane's queued items, pi's LaneSnapshot queues
	// (transcript.ts readLaneQueues over the inbox): what queue_update
	// replaces in a client's fold.
	Queues pi.JSONValue
}

// Snapshot is the seed's lane view: pi's capture (Capture) with the live
// partial taking precedence while its stream still owns the fence — what a
// client that folded every event since the capture (ClientFold) shows
// mid-stream. It reads committed storage and the in-process state; it
// replays no historical events.
//
// Unlike Capture it reads beside the mutation line, yet at one cut: when a
// command's commit reached storage during the reads before its state was
// published (cut.go), it waits for that state and reads again. So it shows
// the lane at the moment of its last reads, which end just before it
// returns.
func (l *Lane) Snapshot() (*Snapshot, error) {
	for {
		l.mu.Lock()
		mark := l.cut
		cur := l.view.clone()
		live := l.livePartial(cur)
		l.mu.Unlock()
		s, err := l.snapshotOf(cur, live)
		ok, published := l.readAt(mark)
		if ok {
			if err != nil {
				return nil, err
			}
			return s, nil
		}
		if published != nil {
			if err := published.Wait(); err != nil {
				return nil, err
			}
		}
	}
}

// livePartial is the live partial Snapshot shows in view cur; l.mu is held.
func (l *Lane) livePartial(cur view) *pi.AssistantMessage {
	// pi's client fold (reduceLaneSnapshot) lands message_update only on a
	// matching current operation, and captureLaneSnapshot has no operation
	// after a terminal TX: once an external finalization removed the
	// operation, the still-draining fenced stream shows nothing.
	owned := l.live != nil && (l.cfg.bugs.on(bugSnapshotShowsDeadLivePartial) || liveOwns(cur, l.live))
	if owned && l.live.partial != nil {
		return l.live.partial.Clone()
	}
	return nil
}

// snapshotOf reads storage for Snapshot in view cur with live partial live.
func (l *Lane) snapshotOf(cur view, live *pi.AssistantMessage) (*Snapshot, error) {
	if live == nil {
		return l.capture(cur, true)
	}
	s, err := l.capture(cur, false)
	if err != nil {
		return nil, err
	}
	s.StreamingMessage, s.Live = live, true
	return s, nil
}

// Capture is pi's captureLaneSnapshot (runtime/lane.ts): the committed
// transcript and, for assistant/deferred effect_pending, the reduction of
// the committed frames — never the live partial, which reaches a client
// only through the event fold (ClientFold).
//
// Like pi's Lane.watch, it runs on the mutation line (readLane →
// session.mutate), so the in-process state and the storage it reads are one
// cut: a command publishes its next state only after its commit returns, and
// a store may expose a commit before acknowledging it (JSONL compacts in
// between), so a read beside the line could pair a settlement's storage with
// the effect_pending state before it. A closed or faulted lane refuses with
// its seal error, as readLane's assertOpen does, and a failed read faults
// the lane, as readLane's onFault does. Never call it from line work.
func (l *Lane) Capture() (*Snapshot, error) {
	var s *Snapshot
	err := l.line.Run(string(CmdCapture), func() error {
		l.mu.Lock()
		cur := l.view.clone()
		l.mu.Unlock()
		var err error
		if s, err = l.capture(cur, true); err != nil {
			return l.faultWith(err)
		}
		return nil
	}).Wait()
	if err != nil {
		return nil, err
	}
	return s, nil
}

// capture reads view v's transcript and, when frames is set, the reduction
// of the current response's committed frames.
func (l *Lane) capture(cur view, frames bool) (*Snapshot, error) {
	s := &Snapshot{Lane: l.cfg.Name, TipID: cur.tip}
	if cur.op != nil {
		s.OperationID, s.State = cur.op.ID, cur.op.State.Clone()
	}
	tr, err := transcript(l, cur.tip)
	if err != nil {
		return nil, err
	}
	s.Transcript = tr
	if s.Queues, err = l.laneQueues(cur.laneState.Inbox); err != nil {
		return nil, err
	}
	if frames && cur.op != nil && cur.op.State.At.IsEffectPending() {
		fs, truncated, err := l.readFrames(cur.op.ID, cur.op.State.ResponseEntryID)
		if err != nil {
			return nil, err
		}
		m, raw, err := reduceStored(fs)
		if err != nil {
			return nil, fmt.Errorf("lane: snapshot: reduce frames: %w", err)
		}
		s.StreamingMessage, s.StreamingRaw, s.FramesTruncated = m, raw, truncated
	}
	return s, nil
}

// liveOwns reports whether the live stream still holds the invocation fence
// in view v.
func liveOwns(v view, s *liveStream) bool {
	return v.op != nil && v.op.ID == s.op && v.op.State.At.IsEffectPending() && v.op.State.ResponseEntryID == s.responseEntryID
}

// transcript walks parent links from tip back to the root, or to the
// newest compaction entry on the way, which it keeps: pi's
// captureLaneSnapshot (runtime/lane.ts) reads scanBranch({start: tipId,
// stopAtType: "compaction", order: "newestFirst"}), as the compaction
// preparation's readBoundedEntries does (boundedBranch).
func transcript(l *Lane, tip *string) ([]TranscriptEntry, error) {
	if tip == nil {
		return nil, nil
	}
	entries, err := l.cfg.Storage.Entries()
	if err != nil {
		return nil, fmt.Errorf("lane: snapshot: entries: %w", err)
	}
	// the index of each id's last entry, as a map from id to entry
	// overwritten in order keeps
	byID := make(map[string]int, len(entries))
	for i := range entries {
		byID[entries[i].Entry.ID] = i
	}
	rev := make([]TranscriptEntry, 0, len(entries))
	for id := tip; id != nil; {
		i, ok := byID[*id]
		if !ok {
			return nil, fmt.Errorf("lane: snapshot: branch entry %s is missing", *id)
		}
		se := &entries[i]
		e := TranscriptEntry{ID: se.Entry.ID, ParentID: se.Entry.ParentID, Seq: se.Seq, Raw: se.Entry.Raw}
		rev = append(rev, e)
		if isCompactionEntry(se.Entry.Raw) {
			break
		}
		id = e.ParentID
		if len(rev) > len(entries) {
			return nil, fmt.Errorf("lane: snapshot: branch has a cycle at %s", e.ID)
		}
	}
	for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
		rev[i], rev[j] = rev[j], rev[i]
	}
	return rev, nil
}

// GenerateStructural runs a structural (summary) generation stream
// process-locally: no frames, no public assistant lifecycle events. It
// returns the final message.
func (l *Lane) GenerateStructural(req Request) (*pi.AssistantMessage, error) {
	stream := l.cfg.Provider.Stream(req)
	var last *pi.AssistantMessage
	for {
		ev, err := stream.Next()
		if err != nil {
			return transportFailure(last, req.Model, err, l.now()), nil
		}
		if ev.Type == pi.EventDone || ev.Type == pi.EventError {
			if ev.Message == nil {
				return nil, fmt.Errorf("lane: structural stream: %s event has no message", ev.Type)
			}
			return ev.Message.Clone(), nil
		}
		if ev.Partial != nil {
			last = ev.Partial
		}
	}
}

// compactionType is how pi's writer spells a compaction entry's type:
// only an entry holding it, or a \u escape that could spell it, is
// parsed to read its type.
var compactionType, unicodeEscape = []byte(`"compaction"`), []byte(`\u`)

// isCompactionEntry reports whether the stored entry's type is
// "compaction".
func isCompactionEntry(raw json.RawMessage) bool {
	if !bytes.Contains(raw, compactionType) && !bytes.Contains(raw, unicodeEscape) {
		return false
	}
	v, err := pi.ParseJSON(string(raw))
	if err != nil || v.Kind() != pi.Object {
		return false
	}
	t, _ := v.ObjectValue().Get("type")
	return t.Kind() == pi.String && t.Str() == "compaction"
}
