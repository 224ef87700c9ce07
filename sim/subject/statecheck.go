package subject

import (
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/frameproof/frameproof/impl/lane"
	"github.com/frameproof/frameproof/impl/pi"
	"github.com/frameproof/frameproof/impl/store"
	"github.com/frameproof/frameproof/sim/invariants"
	"github.com/frameproof/frameproof/sim/lanesim"
)

// stateCheck runs the seed's invariants (sim/invariants) on what a subject
// committed, transaction by transaction: each committed transaction is
// applied, in commit order, to the simulator's store oracle (model/store,
// lanesim.NewReferenceStore), and the invariants read their view of it —
// the operations and frame lists the transactions named, the entries — with
// the log of the frame pipeline the runner observed (frames the subject's
// encoder produced, frame appends that committed, live message_end events).
//
// It runs before the lockstep comparison of the same transaction, so a
// state no invariant allows is reported as such even when model/lane would
// also have disagreed with the transaction. It never reads a subject's
// internals: only the observations of the protocol.
type stateCheck struct {
	ref store.Storage
	// ops and lists are the operations and frame-list keys any committed
	// write named, sorted, without repeats
	ops, lists []string
	views      invariants.ViewReader
	scan       invariants.LogScan
	log        []invariants.LogItem
	checks     int
}

// clockAt is the reference store's clock: a commit's timestamp is the
// subject's clock when the runner fed it.
type clockAt struct{ now *float64 }

func (c clockAt) Now() time.Time        { return time.UnixMilli(int64(*c.now)) }
func (c clockAt) Sleep(d time.Duration) {}

func newStateCheck(now *float64) *stateCheck {
	return &stateCheck{ref: lanesim.NewReferenceStore(clockAt{now})}
}

// InvariantError is an invariant the subject's committed state (with the
// observed frame pipeline) breaks.
type InvariantError struct{ Err error }

func (e *InvariantError) Error() string {
	return "invariant violated on committed state: " + e.Err.Error()
}
func (e *InvariantError) Unwrap() error { return e.Err }

// frameAppend names a frame append's operation, response and the provider
// event whose frame it is (model/lane's FIFO queue head when it commits).
type frameAppend struct {
	op, resp string
	event    int
}

// commit applies one committed transaction and checks the invariants on
// the state after it; fa is set when the transaction is a frame append.
func (c *stateCheck) commit(ws []Write, fa *frameAppend) error {
	sws, err := storeWrites(ws)
	if err != nil {
		return &InvariantError{err}
	}
	res, err := c.ref.Commit(sws)
	if err != nil {
		// model/store refuses what the subject committed (an entry id
		// reused, a delete of nothing the store allows, ...)
		return &InvariantError{fmt.Errorf("model/store refuses the committed transaction %s: %w", describe(ws), err)}
	}
	for _, w := range sws {
		switch {
		case w.Kind == store.WriteValue && (w.Namespace == lane.NSOpState || w.Namespace == lane.NSOpMeta):
			c.ops = insertSorted(c.ops, w.Key)
		case w.Kind == store.WriteList && w.Namespace == lane.NSAssistantFrame:
			c.lists = insertSorted(c.lists, w.Key)
		}
	}
	if fa != nil && len(res.Seqs) == 1 {
		c.log = append(c.log, invariants.LogItem{Frame: &lane.FrameRecord{OperationID: fa.op, ResponseEntryID: fa.resp,
			EventIndex: fa.event, Outcome: lane.FrameCommitted, Seq: res.Seqs[0]}})
	}
	return c.check("after the commit of "+describe(ws), nil)
}

// enqueued logs a frame the subject's encoder produced for event i of the
// live response (its append is admitted in the same turn).
func (c *stateCheck) enqueued(op, resp string, i int, typ pi.EventType) {
	c.log = append(c.log, invariants.LogItem{Frame: &lane.FrameRecord{OperationID: op, ResponseEntryID: resp,
		EventIndex: i, EventType: typ, Outcome: lane.FrameEnqueued}})
}

// messageEnd logs the live response's message_end.
func (c *stateCheck) messageEnd(resp string) {
	c.log = append(c.log, invariants.LogItem{Event: &lane.Event{Type: lane.EvMessageEnd, EntryID: resp}})
}

// check runs the invariants on the committed state, the log and snap
// (nil: none taken).
func (c *stateCheck) check(where string, snap *lane.Snapshot) error {
	c.checks++
	v, err := c.views.Read(c.ref, c.ops, c.lists)
	if err != nil {
		return &InvariantError{fmt.Errorf("%s: read the committed state: %w", where, err)}
	}
	v.Log, v.Snapshot = c.log, snap
	if err := c.scan.Check(v); err != nil {
		return &InvariantError{fmt.Errorf("%s: %w", where, err)}
	}
	return nil
}

func insertSorted(s []string, k string) []string {
	if i, found := slices.BinarySearch(s, k); !found {
		return slices.Insert(s, i, k)
	}
	return s
}

// storeWrites renders a subject's writes (pi's shape) as the store's.
func storeWrites(ws []Write) ([]store.Write, error) {
	out := make([]store.Write, len(ws))
	for i, w := range ws {
		switch w.Kind {
		case WriteEntry:
			var e entryRef
			if err := json.Unmarshal(w.Entry, &e); err != nil {
				return nil, fmt.Errorf("write %d: entry: %w", i, err)
			}
			out[i] = store.InsertEntry(store.Entry{ID: e.ID, ParentID: e.ParentID, Raw: w.Entry})
		case WriteUsage:
			var e entryRef
			if err := json.Unmarshal(w.Row, &e); err != nil {
				return nil, fmt.Errorf("write %d: usage row: %w", i, err)
			}
			out[i] = store.InsertUsage(store.UsageRow{ID: e.ID, Raw: w.Row})
		default:
			out[i] = store.Write{Kind: w.Kind, Op: w.Op, Namespace: w.Namespace, Key: w.Key, Value: w.Value}
		}
	}
	return out, nil
}

// frameAppend names the frame append a transaction is (nil: none).
func (r *runner) frameAppend(ws []Write) *frameAppend {
	if classify(ws, r.o.m) != txFrame {
		return nil
	}
	resp, i, ok := r.o.m.OldestQueuedFrame()
	if !ok {
		return nil // the lockstep reports an append with no frame enqueued
	}
	return &frameAppend{op: r.o.liveOp, resp: resp, event: i}
}

// snapshot checks the invariants with pi's snapshot (Lane.watch: pi's
// captureLaneSnapshot, read on the lane's mutation line after the commits
// fed so far) as the view's snapshot: invariant 9 — a durable streaming
// message only for an operation at effect_pending, whose response is not
// in the transcript yet. captureLaneSnapshot reduces committed frames, so
// the message is never the live partial (Live false); invariant 9 reads
// only whether there is one.
func (c *stateCheck) snapshot(raw json.RawMessage) error {
	var got piSnapshot
	if err := json.Unmarshal(raw, &got); err != nil {
		return &InvariantError{fmt.Errorf("snapshot: %w", err)}
	}
	s := &lane.Snapshot{Transcript: make([]lane.TranscriptEntry, len(got.Transcript))}
	for i, e := range got.Transcript {
		s.Transcript[i] = lane.TranscriptEntry{ID: e.ID}
	}
	if op := got.Operation; op != nil {
		s.OperationID = op.ID
		sv, err := c.ref.GetValue(lane.OpStateAddr(op.ID))
		if err != nil {
			return &InvariantError{fmt.Errorf("snapshot: read operation %s: %w", op.ID, err)}
		}
		if sv != nil {
			if s.State, err = lane.DecodeState(sv.Value); err != nil {
				return &InvariantError{fmt.Errorf("snapshot: operation %s: %w", op.ID, err)}
			}
		}
		if len(op.StreamingMessage) > 0 && string(op.StreamingMessage) != "null" {
			s.StreamingMessage = &pi.AssistantMessage{}
		}
	}
	return c.check("snapshot (Lane.watch)", s)
}

// synthetic logs the entry a recovery or cancellation settlement
// committed (model/lane's "recover" step: a response no provider stream
// finished), which invariant 7 requires to be an error or aborted message;
// it is checked with the next commit or snapshot, or at the run's end.
func (c *stateCheck) synthetic(ws []Write) {
	for _, w := range ws {
		if w.Kind != WriteEntry {
			continue
		}
		var e entryRef
		if json.Unmarshal(w.Entry, &e) == nil {
			c.log = append(c.log, invariants.LogItem{Event: &lane.Event{Type: lane.EvEntryAdded, EntryID: e.ID, Synthetic: true}})
		}
		return
	}
}
