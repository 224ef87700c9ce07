package lane

import "github.com/frameproof/frameproof/impl/pi"

// ClientFold is what a pi client watching the lane shows: a capture
// (Capture) folded with every lane event since, by the rules of pi's
// reduceLaneSnapshot (runtime/reducer.ts). It is where the live partial
// reaches a client: message_start (a pending assistant message) and
// message_update set it, message_end and run_suspend drop it, and only while
// the event's run is the operation the fold holds; run_start installs the
// operation, run_end clears it; operation_abort marks the operation it
// names aborting; queue_update replaces the queued items.
type ClientFold struct {
	Lane        string
	TipID       *string
	Entries     []string // entry ids along the branch, root first
	OperationID string   // "" when no operation is current
	// Aborting is the operation's status "aborting" (pi's
	// cancel_requested control; false: "open"), from the capture's state
	// or an operation_abort naming the operation.
	Aborting bool
	// StreamingMessage is the operation's streaming message, nil if none.
	StreamingMessage *pi.AssistantMessage
	// StreamingRaw is the capture's untyped streaming message
	// (Snapshot.StreamingRaw) until an event replaces or drops it.
	StreamingRaw pi.JSONValue
	// Queues are the queued items (Snapshot.Queues), as the last
	// queue_update carried them.
	Queues pi.JSONValue
}

// NewClientFold starts a fold from a capture.
func NewClientFold(s *Snapshot) *ClientFold {
	f := &ClientFold{Lane: s.Lane, TipID: s.TipID, OperationID: s.OperationID, StreamingMessage: s.StreamingMessage, StreamingRaw: s.StreamingRaw, Queues: s.Queues}
	f.Aborting = s.State != nil && s.State.Control.CancelRequested
	for _, e := range s.Transcript {
		f.Entries = append(f.Entries, e.ID)
	}
	return f
}

// Apply folds one lane event. Events of another lane are ignored, as
// reduceLaneSnapshot ignores them (usage rows aside, which it folds into
// stats this view does not keep).
func (f *ClientFold) Apply(ev Event) {
	if ev.Lane != "" && ev.Lane != f.Lane {
		return
	}
	matching := f.OperationID != "" && ev.RunID == f.OperationID
	switch ev.Type {
	case EvRunStart:
		// a fresh operation: no streaming message yet
		f.OperationID, f.Aborting = ev.RunID, false
		f.setStreaming(nil)
	case EvOperationAbort:
		if f.OperationID != "" && ev.OperationID == f.OperationID {
			f.Aborting = true
		}
	case EvMessageStart:
		if matching && ev.Message != nil && ev.Message.StopReason == pi.StopPending {
			f.setStreaming(ev.Message.Clone())
		}
	case EvMessageUpdate:
		if matching && ev.Message != nil {
			f.setStreaming(ev.Message.Clone())
		}
	case EvMessageEnd, EvRunSuspend:
		if matching {
			f.setStreaming(nil)
		}
	case EvQueueUpdate:
		f.Queues = ev.Queues
	case EvEntryAdded:
		id := ev.EntryID
		f.Entries, f.TipID = append(f.Entries, id), &id
	case EvRunEnd:
		if matching {
			f.OperationID, f.Aborting = "", false
			f.setStreaming(nil)
		}
	}
}

// setStreaming replaces the streaming message, dropping the capture's
// untyped one.
func (f *ClientFold) setStreaming(m *pi.AssistantMessage) {
	f.StreamingMessage, f.StreamingRaw = m, pi.JSONValue{}
}
