package lane

import (
	"sort"

	"github.com/frameproof/frameproof/impl/pi"
)

// Leaves of the operation state machine the model drives (facts §4).
const (
	AtStarting        = "starting"
	AtReady           = "assistant.ready"
	AtEffectPending   = "assistant.effect_pending"
	AtRetryWait       = "assistant.retry_wait"
	AtDeferredSuspend = "deferred.suspended"
	AtDeferredEffect  = "deferred.effect_pending"
	AtCheckpoint      = "checkpoint"
	AtTools           = "tools"
	AtSummaryDeciding = "summary.deciding"
	FramesNamespace   = "pi.pending.assistant_frame"
	// A checkpoint's continuation: the run's initial checkpoint needs an
	// assistant step (checkpoint.ts startRun); a settled response's
	// checkpoint may finish the run (response.ts publishResponse).
	NeedAssistant = "need_assistant"
	MayFinish     = "may_finish"
	// PendingAssistantRefusal is the session mutator's error for an entry
	// whose assistant message is still pending; the lane faults on it.
	PendingAssistantRefusal = "Cannot persist a pending assistant message"
	// ResultErrorRefusal refuses a result whose error does not match its
	// status (only a failed result carries one).
	ResultErrorRefusal = "Only a failed operation result may carry an error"
	// LostOperationFault is what every drive command throws when it reaches
	// the line with no current operation (an external finalization removed
	// it after the step read it): pi's continueOperation and
	// settleOperation read state.operation!.state (runtime/lane.ts).
	LostOperationFault = "Cannot read properties of null (reading 'state')"
	InterruptedWarning = "Assistant request was interrupted. The preceding content is the latest committed partial; newer live output may be missing and the external outcome is unknown."
)

// State is the committed state of one lane, as plain values that a driver
// can read back from any storage backend and compare with cmp.Diff.
type State struct {
	Tip  string // "" = no branch tip
	Lane LaneRecord
	// Config is pi.lane.config as canonical JSON ("" = none: the lane was
	// never acquired).
	Config  string
	Entries []Entry    // commit order
	Usage   []UsageRow // commit order
	Ops     map[string]Op
	Results map[string]Result
	// Lists maps a frame-list key "op:resp" to its elements' JSON, in seq
	// order. Only non-empty lists appear.
	Lists map[string][]string
	// Pending lists the queued entry ids whose pi.pending.entry value is
	// stored, ascending.
	Pending []string
}

// LaneRecord is pi.lane.state: the current and last operation and the
// inbox of queued input, in queue order.
type LaneRecord struct {
	Current, Last string
	Inbox         []InboxItem
}

// InboxItem is one queued input (pi's InboxItem {entryId, kind}).
type InboxItem struct{ EntryID, Kind string }

// Entry is one transcript entry; Message is its message in canonical JSON.
type Entry struct {
	ID, Parent, Message string
	// Terminate is the canonical JSON of the entry's terminate member, ""
	// when it has none (commitPlacement writes terminate: true on a
	// terminating tool result's entry, and nothing otherwise).
	Terminate string
}

// UsageRow is one usage row; Usage is canonical JSON.
type UsageRow struct{ ID, EntryID, Usage string }

// Op is the part of an operation state leaf that durability is about.
type Op struct {
	At              string
	CancelRequested bool
	RequestedAt     float64
	// LatestAssistantEntryID is the last settled response ("" none).
	LatestAssistantEntryID string
	// checkpoint: NeedAssistant or MayFinish; assistant.ready: the
	// continuation of the checkpoint it was made from, which the ready
	// state keeps ("" after a retry wait, whose ready state keeps none)
	Continuation string
	// assistant.*
	Attempt     int     // effect_pending
	NextAttempt int     // ready, retry_wait
	NotBefore   float64 // retry_wait
	RetryError  string  // retry_wait
	// effect_pending (both kinds)
	ResponseEntryID, UsageID string
	// deferred.*
	Poll          int
	SourceEntryID string
	// tools: content indexes of the planned calls, and the 48-bit UUIDv7
	// timestamp (12 hex digits) each call's resultEntryId carries
	ToolCalls        []int
	ToolResultStamps []string
	// summary.deciding: the canonical JSON of the compaction preparation
	// stored at pi.op.preparation under the task the state names
	Preparation string
}

func (o Op) effectPending() bool { return o.At == AtEffectPending || o.At == AtDeferredEffect }

// Result is pi.result without timestamps.
type Result struct {
	Status, ErrorCode, ErrorMessage, TipID, FromTipID string
	// ErrorDetails is the error's details as canonical JSON ("": none;
	// pi's configuration failures carry them: availability.go)
	ErrorDetails string
}

// FramesKey is pendingAssistantFrames(op, resp)'s key.
func FramesKey(op, resp string) string { return op + ":" + resp }

// Canonical re-serializes JSON through pi's vocabulary so that both sides
// of a comparison use one byte form. Invalid JSON is returned as is, and
// so is a text already in that form (isCanonical), without the parse.
func Canonical(raw []byte) string {
	s := string(raw)
	if isCanonical(s) {
		return s
	}
	v, err := pi.ParseJSON(s)
	if err != nil {
		return s
	}
	return jsonText(v)
}

// jsonText is string(v.AppendJSON(nil)), written in a buffer on the stack
// when it fits (the string is a copy either way): a value built up from a
// nil slice took an allocation per doubling.
func jsonText(v pi.JSONValue) string {
	var buf [512]byte
	return string(v.AppendJSON(buf[:0]))
}

func messageJSON(v any) string {
	// the messages the model stores, written into a buffer on the stack
	// (Marshal writes the same bytes from nil)
	var buf [1024]byte
	switch x := v.(type) {
	case *pi.AssistantMessage:
		return Canonical(x.AppendJSON(buf[:0]))
	case *pi.UserMessage:
		return Canonical(x.AppendJSON(buf[:0]))
	}
	b, err := pi.Marshal(v)
	if err != nil {
		return "<unmarshalable: " + err.Error() + ">"
	}
	return Canonical(b)
}

func usageJSON(u pi.Usage) string {
	var buf [256]byte
	return Canonical(u.AppendJSON(buf[:0]))
}

func (s State) clone() State {
	c := s
	c.Entries = append([]Entry(nil), s.Entries...)
	c.Usage = append([]UsageRow(nil), s.Usage...)
	c.Lane.Inbox = append([]InboxItem(nil), s.Lane.Inbox...)
	c.Pending = append([]string(nil), s.Pending...)
	c.Ops = make(map[string]Op, len(s.Ops))
	for k, v := range s.Ops {
		v.ToolCalls = append([]int(nil), v.ToolCalls...)
		v.ToolResultStamps = append([]string(nil), v.ToolResultStamps...)
		c.Ops[k] = v
	}
	c.Results = make(map[string]Result, len(s.Results))
	for k, v := range s.Results {
		c.Results[k] = v
	}
	c.Lists = make(map[string][]string, len(s.Lists))
	for k, v := range s.Lists {
		if len(v) > 0 {
			c.Lists[k] = append([]string(nil), v...)
		}
	}
	return c
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// interruptedLiteralJSON is the synthetic response built without a
// committed partial, as recovery.ts's object literal orders it: role,
// content, api, provider, model, usage, stopReason, errorMessage, timestamp
// (settlement only replaces values, so the order survives).
func interruptedLiteralJSON(m *pi.AssistantMessage) string {
	obj := pi.NewObject()
	obj.Set("role", pi.StringValue("assistant"))
	obj.Set("content", pi.ArrayValue(nil))
	obj.Set("api", pi.StringValue(m.API))
	obj.Set("provider", pi.StringValue(m.Provider))
	obj.Set("model", pi.StringValue(m.Model))
	usage, _ := pi.ParseJSON(usageJSON(m.Usage))
	obj.Set("usage", usage)
	obj.Set("stopReason", pi.StringValue(string(m.StopReason)))
	if m.ErrorMessage != nil {
		obj.Set("errorMessage", pi.StringValue(*m.ErrorMessage))
	}
	obj.Set("timestamp", pi.NumberValue(m.Timestamp))
	return string(pi.ObjectValue(obj).AppendJSON(nil))
}

// UUIDv7Stamp is the 48-bit timestamp of a UUIDv7 id as its 12 hex digits
// (before the first hyphen, then the next four); "" if id is too short.
func UUIDv7Stamp(id string) string {
	if len(id) < 13 {
		return ""
	}
	return id[:8] + id[9:13]
}
