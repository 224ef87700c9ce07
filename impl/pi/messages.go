package pi

import (
	"fmt"
	"sync"
)

// StopReason is why a response ended; "pending" while it streams.
type StopReason string

const (
	StopPending  StopReason = "pending"
	StopStop     StopReason = "stop"
	StopLength   StopReason = "length"
	StopToolUse  StopReason = "toolUse"
	StopError    StopReason = "error"
	StopAborted  StopReason = "aborted"
	StopDeferred StopReason = "deferred"
)

// StopReasons lists the seven stop reasons of pi-ai 1.0.3.
var StopReasons = []StopReason{StopPending, StopStop, StopLength, StopToolUse, StopError, StopAborted, StopDeferred}

// Cost is usage.cost: {input,output,cacheRead,cacheWrite,total}.
type Cost struct {
	Input, Output, CacheRead, CacheWrite, Total float64
}

// Usage is {input,output,cacheRead,cacheWrite,cacheWrite1h?,reasoning?,totalTokens,cost}.
type Usage struct {
	Input, Output, CacheRead, CacheWrite float64
	CacheWrite1h                         *float64
	Reasoning                            *float64
	TotalTokens                          float64
	Cost                                 Cost
}

func (u Usage) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"input":`...)
	dst = NumberValue(u.Input).AppendJSON(dst)
	dst = append(dst, `,"output":`...)
	dst = NumberValue(u.Output).AppendJSON(dst)
	dst = append(dst, `,"cacheRead":`...)
	dst = NumberValue(u.CacheRead).AppendJSON(dst)
	dst = append(dst, `,"cacheWrite":`...)
	dst = NumberValue(u.CacheWrite).AppendJSON(dst)
	dst = appendOptNumber(dst, "cacheWrite1h", u.CacheWrite1h)
	dst = appendOptNumber(dst, "reasoning", u.Reasoning)
	dst = append(dst, `,"totalTokens":`...)
	dst = NumberValue(u.TotalTokens).AppendJSON(dst)
	dst = append(dst, `,"cost":{"input":`...)
	dst = NumberValue(u.Cost.Input).AppendJSON(dst)
	dst = append(dst, `,"output":`...)
	dst = NumberValue(u.Cost.Output).AppendJSON(dst)
	dst = append(dst, `,"cacheRead":`...)
	dst = NumberValue(u.Cost.CacheRead).AppendJSON(dst)
	dst = append(dst, `,"cacheWrite":`...)
	dst = NumberValue(u.Cost.CacheWrite).AppendJSON(dst)
	dst = append(dst, `,"total":`...)
	dst = NumberValue(u.Cost.Total).AppendJSON(dst)
	return append(dst, "}}"...)
}

func decodeUsage(v JSONValue, path string) (Usage, error) {
	f, err := readFields(v, path)
	if err != nil {
		return Usage{}, err
	}
	u := Usage{Input: f.num("input"), Output: f.num("output"), CacheRead: f.num("cacheRead"),
		CacheWrite: f.num("cacheWrite"), CacheWrite1h: f.optNum("cacheWrite1h"),
		Reasoning: f.optNum("reasoning"), TotalTokens: f.num("totalTokens")}
	if f.err == nil {
		c, err := readFields(f.get("cost"), f.at("cost"))
		if err != nil {
			return Usage{}, err
		}
		u.Cost = Cost{Input: c.num("input"), Output: c.num("output"), CacheRead: c.num("cacheRead"),
			CacheWrite: c.num("cacheWrite"), Total: c.num("total")}
		if err := c.done(); err != nil {
			return Usage{}, err
		}
	}
	return u, f.done()
}

// DeferredHandle is {provider,modelId,api,id,expiresAt?,pollAfterMs?,data?}.
type DeferredHandle struct {
	Provider, ModelID, API, ID string
	ExpiresAt                  *float64
	PollAfterMs                *float64
	Data                       JSONValue
}

func (d DeferredHandle) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"provider":`...)
	dst = AppendQuote(dst, d.Provider)
	dst = append(dst, `,"modelId":`...)
	dst = AppendQuote(dst, d.ModelID)
	dst = append(dst, `,"api":`...)
	dst = AppendQuote(dst, d.API)
	dst = append(dst, `,"id":`...)
	dst = AppendQuote(dst, d.ID)
	dst = appendOptNumber(dst, "expiresAt", d.ExpiresAt)
	dst = appendOptNumber(dst, "pollAfterMs", d.PollAfterMs)
	dst = appendOptValue(dst, "data", d.Data)
	return append(dst, '}')
}

func decodeDeferred(v JSONValue, path string) (*DeferredHandle, error) {
	f, err := readFields(v, path)
	if err != nil {
		return nil, err
	}
	d := &DeferredHandle{Provider: f.str("provider"), ModelID: f.str("modelId"), API: f.str("api"),
		ID: f.str("id"), ExpiresAt: f.optNum("expiresAt"), PollAfterMs: f.optNum("pollAfterMs"), Data: f.get("data")}
	return d, f.done()
}

// AssistantMessage is pi-ai's AssistantMessage. Content holds TextContent,
// ThinkingContent and ToolCall values. Diagnostics is kept as raw JSON
// (an array of {type,timestamp,error?,details?}); Undefined when absent.
type AssistantMessage struct {
	Content               []Content
	API                   string
	Provider              string
	Model                 string
	ResponseModel         *string
	ResponseID            *string
	ProviderThinkingLevel *string
	ThinkingLevel         *string
	Diagnostics           JSONValue
	Usage                 Usage
	StopReason            StopReason
	Timestamp             float64
	Deferred              *DeferredHandle
	ErrorMessage          *string
	RawStopReason         *string
	EndTurn               *bool
}

// Clone copies the message and its content list (blocks are values and
// JSONValues are immutable, so this is a deep copy in effect).
func (m *AssistantMessage) Clone() *AssistantMessage {
	if m == nil {
		return nil
	}
	c := *m
	c.Content = append([]Content(nil), m.Content...)
	if m.Deferred != nil {
		d := *m.Deferred
		c.Deferred = &d
	}
	return &c
}

func (m *AssistantMessage) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"role":"assistant","content":`...)
	dst = appendContentList(dst, m.Content)
	dst = append(dst, `,"api":`...)
	dst = AppendQuote(dst, m.API)
	dst = append(dst, `,"provider":`...)
	dst = AppendQuote(dst, m.Provider)
	dst = append(dst, `,"model":`...)
	dst = AppendQuote(dst, m.Model)
	dst = appendOptString(dst, "responseModel", m.ResponseModel)
	dst = appendOptString(dst, "responseId", m.ResponseID)
	dst = appendOptString(dst, "providerThinkingLevel", m.ProviderThinkingLevel)
	dst = appendOptString(dst, "thinkingLevel", m.ThinkingLevel)
	dst = appendOptValue(dst, "diagnostics", m.Diagnostics)
	dst = append(dst, `,"usage":`...)
	dst = m.Usage.AppendJSON(dst)
	dst = append(dst, `,"stopReason":`...)
	dst = AppendQuote(dst, string(m.StopReason))
	dst = append(dst, `,"timestamp":`...)
	dst = NumberValue(m.Timestamp).AppendJSON(dst)
	if m.Deferred != nil {
		dst = m.Deferred.AppendJSON(appendKey(dst, false, "deferred"))
	}
	dst = appendOptString(dst, "errorMessage", m.ErrorMessage)
	dst = appendOptString(dst, "rawStopReason", m.RawStopReason)
	dst = appendOptBool(dst, "endTurn", m.EndTurn)
	return append(dst, '}')
}

func (m *AssistantMessage) MarshalJSON() ([]byte, error) { return m.AppendJSON(nil), nil }

func (m *AssistantMessage) UnmarshalJSON(data []byte) error {
	v, err := ParseJSON(string(data))
	if err != nil {
		return err
	}
	d, err := DecodeAssistantMessage(v, "$")
	if err != nil {
		return err
	}
	*m = *d
	return nil
}

// DecodeAssistantMessage maps a parsed value onto AssistantMessage.
func DecodeAssistantMessage(v JSONValue, path string) (*AssistantMessage, error) {
	return decodeAssistantMessage(v, path, false)
}

// DecodeLiveMessage decodes a provider's live message the way pi-ai's
// encoder reads it (cloneStartMessage and the block clone helpers in
// utils/assistant-message-frame.ts): members they do not name, on the
// message and on its content blocks, are ignored. Usage is copied whole by
// structuredClone, so unknown usage members are still an error.
func DecodeLiveMessage(v JSONValue, path string) (*AssistantMessage, error) {
	return decodeAssistantMessage(v, path, true)
}

func decodeAssistantMessage(v JSONValue, path string, whitelist bool) (*AssistantMessage, error) {
	f, err := readFields(v, path)
	if err != nil {
		return nil, err
	}
	f.whitelist = whitelist
	f.constant("role", "assistant")
	m := &AssistantMessage{API: f.str("api"), Provider: f.str("provider"), Model: f.str("model"),
		ResponseModel: f.optStr("responseModel"), ResponseID: f.optStr("responseId"),
		ProviderThinkingLevel: f.optStr("providerThinkingLevel"), ThinkingLevel: f.optStr("thinkingLevel"),
		Diagnostics: f.get("diagnostics"), StopReason: StopReason(f.str("stopReason")),
		Timestamp: f.num("timestamp"), ErrorMessage: f.optStr("errorMessage"),
		RawStopReason: f.optStr("rawStopReason"), EndTurn: f.optBool("endTurn")}
	if f.err != nil {
		return nil, f.err
	}
	if m.Diagnostics.kind != Undefined && m.Diagnostics.kind != Array {
		return nil, &DecodeError{f.at("diagnostics"), "expected array, got " + m.Diagnostics.kind.String()}
	}
	if m.Content, err = decodeContentListAs(f.get("content"), f.at("content"), whitelist, "text", "thinking", "toolCall"); err != nil {
		return nil, err
	}
	if m.Usage, err = decodeUsage(f.get("usage"), f.at("usage")); err != nil {
		return nil, err
	}
	if d := f.get("deferred"); d.kind != Undefined {
		if m.Deferred, err = decodeDeferred(d, f.at("deferred")); err != nil {
			return nil, err
		}
	}
	return m, f.done()
}

// UserMessage is {role:"user",content,timestamp}; content is a string
// (Text, when Blocks is nil) or a list of text and image blocks.
type UserMessage struct {
	Text      string
	Blocks    []Content // non-nil: content is an array
	Timestamp float64
}

func (m *UserMessage) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"role":"user","content":`...)
	if m.Blocks != nil {
		dst = appendContentList(dst, m.Blocks)
	} else {
		dst = AppendQuote(dst, m.Text)
	}
	dst = append(dst, `,"timestamp":`...)
	dst = NumberValue(m.Timestamp).AppendJSON(dst)
	return append(dst, '}')
}

func (m *UserMessage) MarshalJSON() ([]byte, error) { return m.AppendJSON(nil), nil }

func (m *UserMessage) UnmarshalJSON(data []byte) error {
	v, err := ParseJSON(string(data))
	if err != nil {
		return err
	}
	d, err := DecodeUserMessage(v, "$")
	if err != nil {
		return err
	}
	*m = *d
	return nil
}

// DecodeUserMessage maps a parsed value onto UserMessage.
func DecodeUserMessage(v JSONValue, path string) (*UserMessage, error) {
	f, err := readFields(v, path)
	if err != nil {
		return nil, err
	}
	f.constant("role", "user")
	m := &UserMessage{Timestamp: f.num("timestamp")}
	c := f.get("content")
	switch c.kind {
	case String:
		m.Text = c.s
	case Array:
		if m.Blocks, err = decodeContentList(c, f.at("content"), "text", "image"); err != nil {
			return nil, err
		}
	default:
		f.fail("content", "expected string or array, got "+c.kind.String())
	}
	return m, f.done()
}

// ToolResultMessage is {role:"toolResult",toolCallId,toolName,content,
// details?,usage?,nestedCalls?,isError,timestamp}.
type ToolResultMessage struct {
	ToolCallID  string
	ToolName    string
	Content     []Content // text and image blocks
	Details     JSONValue
	Usage       *Usage
	NestedCalls JSONValue
	IsError     bool
	Timestamp   float64
}

func (m *ToolResultMessage) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"role":"toolResult","toolCallId":`...)
	dst = AppendQuote(dst, m.ToolCallID)
	dst = append(dst, `,"toolName":`...)
	dst = AppendQuote(dst, m.ToolName)
	dst = append(dst, `,"content":`...)
	dst = appendContentList(dst, m.Content)
	dst = appendOptValue(dst, "details", m.Details)
	if m.Usage != nil {
		dst = m.Usage.AppendJSON(appendKey(dst, false, "usage"))
	}
	dst = appendOptValue(dst, "nestedCalls", m.NestedCalls)
	dst = append(dst, `,"isError":`...)
	dst = BoolValue(m.IsError).AppendJSON(dst)
	dst = append(dst, `,"timestamp":`...)
	dst = NumberValue(m.Timestamp).AppendJSON(dst)
	return append(dst, '}')
}

func (m *ToolResultMessage) MarshalJSON() ([]byte, error) { return m.AppendJSON(nil), nil }

func (m *ToolResultMessage) UnmarshalJSON(data []byte) error {
	v, err := ParseJSON(string(data))
	if err != nil {
		return err
	}
	d, err := DecodeToolResultMessage(v, "$")
	if err != nil {
		return err
	}
	*m = *d
	return nil
}

// DecodeToolResultMessage maps a parsed value onto ToolResultMessage.
func DecodeToolResultMessage(v JSONValue, path string) (*ToolResultMessage, error) {
	f, err := readFields(v, path)
	if err != nil {
		return nil, err
	}
	f.constant("role", "toolResult")
	m := &ToolResultMessage{ToolCallID: f.str("toolCallId"), ToolName: f.str("toolName"),
		Details: f.get("details"), NestedCalls: f.get("nestedCalls"), IsError: f.boolean("isError"),
		Timestamp: f.num("timestamp")}
	if f.err != nil {
		return nil, f.err
	}
	if m.Content, err = decodeContentList(f.get("content"), f.at("content"), "text", "image"); err != nil {
		return nil, err
	}
	if u := f.get("usage"); u.kind != Undefined {
		us, err := decodeUsage(u, f.at("usage"))
		if err != nil {
			return nil, err
		}
		m.Usage = &us
	}
	return m, f.done()
}

// Appender is anything that writes its own JSON.stringify bytes.
type Appender interface{ AppendJSON(dst []byte) []byte }

// Marshal returns JSON.stringify(v) for pi vocabulary values, without HTML
// escaping and without encoding/json's re-compaction.
//
// The text is written into a pooled buffer and copied out at its size: an
// append from nil grew the result through several arrays on its way.
func Marshal(v any) ([]byte, error) {
	bp := marshalBufs.Get().(*[]byte)
	var buf []byte
	switch x := v.(type) {
	case JSONValue:
		if x.kind == Undefined {
			marshalBufs.Put(bp)
			return nil, errNotSerializable
		}
		buf = x.AppendJSON((*bp)[:0])
	case Appender:
		buf = x.AppendJSON((*bp)[:0])
	default:
		marshalBufs.Put(bp)
		return nil, fmt.Errorf("pi: Marshal: unsupported type %T", v)
	}
	var out []byte
	if len(buf) > 0 { // else nil, as an append of nothing to nil is
		out = make([]byte, len(buf))
		copy(out, buf)
	}
	if cap(buf) <= maxPooledMarshal {
		*bp = buf
		marshalBufs.Put(bp)
	}
	return out, nil
}

// maxPooledMarshal bounds the buffers Marshal pools.
const maxPooledMarshal = 64 << 10

var marshalBufs = sync.Pool{New: func() any { b := make([]byte, 0, 1024); return &b }}
