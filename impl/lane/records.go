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

// raw is {currentOperationId, lastOperationId, inbox} written directly
// (TestRecordWritersAreJobj: the bytes of the jobj literal).
func (s LaneState) raw() json.RawMessage {
	b := make([]byte, 0, 128)
	b = append(b, `{"currentOperationId":`...)
	b = appendOptStr(b, s.CurrentOperationID)
	b = append(b, `,"lastOperationId":`...)
	b = appendOptStr(b, s.LastOperationID)
	b = append(b, `,"inbox":`...)
	if s.Inbox.IsUndefined() {
		b = append(b, "[]"...)
	} else {
		b = s.Inbox.AppendJSON(b)
	}
	return append(b, '}')
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

// raw is {operationId, lane, sourceTipId, startedAt, intent} written
// directly (TestRecordWritersAreJobj: the bytes of the jobj literal).
func (m OpMeta) raw() json.RawMessage {
	b := make([]byte, 0, 192)
	b = append(b, `{"operationId":`...)
	b = pi.AppendQuote(b, m.OperationID)
	b = append(b, `,"lane":`...)
	b = pi.AppendQuote(b, m.Lane)
	b = append(b, `,"sourceTipId":`...)
	b = appendOptStr(b, m.SourceTipID)
	b = append(b, `,"startedAt":`...)
	b = appendNum(b, m.StartedAt)
	b = append(b, `,"intent":{"kind":`...)
	b = pi.AppendQuote(b, m.Kind)
	if m.Kind == "run" {
		b = append(b, `,"promptEntryIds":[`...)
		for i, id := range m.PromptEntryIDs {
			if i > 0 {
				b = append(b, ',')
			}
			b = pi.AppendQuote(b, id)
		}
		b = append(b, ']')
	}
	return append(b, "}}"...)
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

// OpError is {code, message, details?}: Details is omitted while
// undefined (pi's configuration failures carry it: availability.go).
type OpError struct {
	Code, Message string
	Details       pi.JSONValue
}

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

// raw is the record's object literal written directly, error omitted when
// nil (TestRecordWritersAreJobj: the bytes of the jobj literal).
func (r ResultRecord) raw() json.RawMessage {
	b := make([]byte, 0, 256)
	b = append(b, `{"operationId":`...)
	b = pi.AppendQuote(b, r.OperationID)
	b = append(b, `,"kind":`...)
	b = pi.AppendQuote(b, r.Kind)
	b = append(b, `,"status":`...)
	b = pi.AppendQuote(b, r.Status)
	if r.Error != nil {
		b = append(b, `,"error":{"code":`...)
		b = pi.AppendQuote(b, r.Error.Code)
		b = append(b, `,"message":`...)
		b = pi.AppendQuote(b, r.Error.Message)
		if !r.Error.Details.IsUndefined() {
			b = append(b, `,"details":`...)
			b = r.Error.Details.AppendJSON(b)
		}
		b = append(b, '}')
	}
	b = append(b, `,"fromTipId":`...)
	b = appendOptStr(b, r.FromTipID)
	b = append(b, `,"tipId":`...)
	b = appendOptStr(b, r.TipID)
	b = append(b, `,"startedAt":`...)
	b = appendNum(b, r.StartedAt)
	b = append(b, `,"endedAt":`...)
	b = appendNum(b, r.EndedAt)
	return append(b, '}')
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
