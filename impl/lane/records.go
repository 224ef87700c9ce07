package lane

import (
	"encoding/json"

	"github.com/frameproof/frameproof/impl/pi"
	"github.com/frameproof/frameproof/impl/store"
)

// Namespaces of the pi built-in addresses this package uses (session/values.ts).
const (
	NSBranchTip      = "pi.branch.tip"
	NSLaneState      = "pi.lane.state"
	NSLaneConfig     = "pi.lane.config"
	NSResult         = "pi.result"
	NSOpMeta         = "pi.op.meta"
	NSOpState        = "pi.op.state"
	NSToolArgs       = "pi.op.tool_args"
	NSToolMemo       = "pi.op.tool_memo"
	NSPreparation    = "pi.op.preparation"
	NSPendingOutput  = "pi.pending.tool_output"
	NSPendingEntry   = "pi.pending.entry"
	NSAssistantFrame = "pi.pending.assistant_frame"
	NSSessionName    = "pi.session.name"
	NSEntryLabel     = "pi.entry.label"
)

func valueAddr(ns, key string) store.Address {
	return store.Address{Namespace: ns, Key: key, Kind: store.KindValue}
}

// FramesAddr is pendingAssistantFrames(operationId, responseEntryId):
// list("pi.pending.assistant_frame", `${op}:${resp}`).
func FramesAddr(operationID, responseEntryID string) store.Address {
	return store.Address{Namespace: NSAssistantFrame, Key: operationID + ":" + responseEntryID, Kind: store.KindList}
}

// BranchTipAddr, LaneConfigAddr, LaneStateAddr, ResultAddr, OpMetaAddr and
// OpStateAddr are the scalar built-ins the lifecycle writes.
func BranchTipAddr(lane string) store.Address  { return valueAddr(NSBranchTip, lane) }
func LaneConfigAddr(lane string) store.Address { return valueAddr(NSLaneConfig, lane) }
func LaneStateAddr(lane string) store.Address  { return valueAddr(NSLaneState, lane) }
func ResultAddr(op string) store.Address       { return valueAddr(NSResult, op) }
func OpMetaAddr(op string) store.Address       { return valueAddr(NSOpMeta, op) }
func OpStateAddr(op string) store.Address      { return valueAddr(NSOpState, op) }

// LaneState is {currentOperationId, lastOperationId, inbox}.
type LaneState struct {
	CurrentOperationID *string
	LastOperationID    *string
	Inbox              pi.JSONValue // array, kept opaque
}

func (s LaneState) raw() json.RawMessage {
	inbox := s.Inbox
	if inbox.IsUndefined() {
		inbox = pi.ArrayValue(nil)
	}
	return jobj("currentOperationId", s.CurrentOperationID, "lastOperationId", s.LastOperationID, "inbox", inbox).AppendJSON(nil)
}

func decodeLaneState(raw []byte) (LaneState, error) {
	v, err := pi.ParseJSON(string(raw))
	if err != nil {
		return LaneState{}, err
	}
	r := &reader{path: "laneState"}
	s := LaneState{CurrentOperationID: r.optStr(v, "currentOperationId"), LastOperationID: r.optStr(v, "lastOperationId"), Inbox: r.get(v, "inbox")}
	return s, r.err
}

// OpMeta is the immutable operation meta acceptRun writes (runtime/lane.ts):
// {operationId, lane, sourceTipId, startedAt, intent:{kind:"run",
// promptEntryIds}}, the ids of the prompt entries the run appended.
type OpMeta struct {
	OperationID    string
	Lane           string
	SourceTipID    *string
	StartedAt      float64
	Kind           string
	PromptEntryIDs []string
}

func (m OpMeta) raw() json.RawMessage {
	intent := jobj("kind", m.Kind)
	if m.Kind == "run" {
		ids := m.PromptEntryIDs
		if ids == nil {
			ids = []string{}
		}
		intent = jobj("kind", m.Kind, "promptEntryIds", ids)
	}
	return jobj("operationId", m.OperationID, "lane", m.Lane, "sourceTipId", m.SourceTipID, "startedAt", m.StartedAt,
		"intent", intent).AppendJSON(nil)
}

// decodeMeta reads a stored meta. lane and promptEntryIds are read when
// present: a session written before frameproof stored them still opens.
func decodeMeta(raw []byte) (OpMeta, error) {
	v, err := pi.ParseJSON(string(raw))
	if err != nil {
		return OpMeta{}, err
	}
	r := &reader{path: "meta"}
	intent := r.get(v, "intent")
	m := OpMeta{OperationID: r.str(v, "operationId"), Kind: r.str(intent, "kind"), SourceTipID: r.optStr(v, "sourceTipId"), StartedAt: r.num(v, "startedAt")}
	if !r.get(v, "lane").IsUndefined() {
		m.Lane = r.str(v, "lane")
	}
	if !r.get(intent, "promptEntryIds").IsUndefined() {
		m.PromptEntryIDs = r.strs(intent, "promptEntryIds")
	}
	return m, r.err
}

// OpError is {code, message}.
type OpError struct{ Code, Message string }

// ResultRecord is OperationResultRecord.
type ResultRecord struct {
	OperationID string
	Kind        string
	Status      string // completed | declined | aborted | failed
	Error       *OpError
	FromTipID   *string
	TipID       *string
	StartedAt   float64
	EndedAt     float64
}

func (r ResultRecord) raw() json.RawMessage {
	var e any
	if r.Error != nil {
		e = jobj("code", r.Error.Code, "message", r.Error.Message)
	}
	return jobj("operationId", r.OperationID, "kind", r.Kind, "status", r.Status, "error", e,
		"fromTipId", r.FromTipID, "tipId", r.TipID, "startedAt", r.StartedAt, "endedAt", r.EndedAt).AppendJSON(nil)
}

// messageEntryRaw is {id, parentId, type:"message", message}.
func messageEntryRaw(id string, parent *string, message []byte) json.RawMessage {
	b := []byte(`{"id":`)
	b = pi.AppendQuote(b, id)
	b = append(b, `,"parentId":`...)
	if parent == nil {
		b = append(b, "null"...)
	} else {
		b = pi.AppendQuote(b, *parent)
	}
	b = append(b, `,"type":"message","message":`...)
	b = append(b, message...)
	return append(b, '}')
}

// usageRowRaw is {id, usage, entryId, adjustment:false}.
func usageRowRaw(id string, usage pi.Usage, entryID string) json.RawMessage {
	b := []byte(`{"id":`)
	b = pi.AppendQuote(b, id)
	b = append(b, `,"usage":`...)
	b = usage.AppendJSON(b)
	b = append(b, `,"entryId":`...)
	b = pi.AppendQuote(b, entryID)
	return append(b, `,"adjustment":false}`...)
}

func strp(s string) *string { return &s }
