package provider

import (
	"encoding/json"
)

// Block is one assistant content block (tool Arguments are pi.JSONValue when
// an adapter built them; see ArgsValue). Type selects which fields matter:
// "text" (Text, TextSignature), "thinking" (Thinking, ThinkingSignature,
// Redacted) or "toolCall" (ID, Name, Arguments, ThoughtSignature).
type Block struct {
	Type string `json:"type"`

	Text          string `json:"text,omitempty"`
	TextSignature string `json:"textSignature,omitempty"`

	Thinking          string `json:"thinking,omitempty"`
	ThinkingSignature string `json:"thinkingSignature,omitempty"`
	Redacted          bool   `json:"redacted,omitempty"`

	ID               string `json:"id,omitempty"`
	Name             string `json:"name,omitempty"`
	Arguments        any    `json:"arguments,omitempty"`
	ThoughtSignature string `json:"thoughtSignature,omitempty"`
}

// Body returns the streamed body of a text or thinking block.
func (b Block) Body() string {
	if b.Type == "thinking" {
		return b.Thinking
	}
	return b.Text
}

// Usage is pi-ai's token usage without the cost breakdown (costs depend on a
// price table, not on the wire).
type Usage struct {
	Input       int `json:"input"`
	Output      int `json:"output"`
	CacheRead   int `json:"cacheRead"`
	CacheWrite  int `json:"cacheWrite"`
	Reasoning   int `json:"reasoning,omitempty"`
	TotalTokens int `json:"totalTokens"`
}

// Message is the assistant message being streamed.
type Message struct {
	Role          string  `json:"role"`
	Content       []Block `json:"content"`
	API           string  `json:"api"`
	Provider      string  `json:"provider"`
	Model         string  `json:"model"`
	ResponseID    string  `json:"responseId,omitempty"`
	Usage         Usage   `json:"usage"`
	StopReason    string  `json:"stopReason"`
	ErrorMessage  string  `json:"errorMessage,omitempty"`
	RawStopReason string  `json:"rawStopReason,omitempty"`
}

// Clone returns a deep copy. Tool arguments decoded by encoding/json (maps,
// slices) are copied; a pi.JSONValue is shared, which is safe because the
// adapters replace a block's arguments and never mutate them in place.
func (m *Message) Clone() *Message {
	if m == nil {
		return nil
	}
	c := *m
	c.Content = make([]Block, len(m.Content))
	for i, b := range m.Content {
		b.Arguments = cloneJSON(b.Arguments)
		c.Content[i] = b
	}
	return &c
}

func cloneJSON(v any) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, x := range t {
			out[k] = cloneJSON(x)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, x := range t {
			out[i] = cloneJSON(x)
		}
		return out
	default:
		return v
	}
}

// Event types, as pi-ai names them.
const (
	EvStart         = "start"
	EvTextStart     = "text_start"
	EvTextDelta     = "text_delta"
	EvTextEnd       = "text_end"
	EvThinkingStart = "thinking_start"
	EvThinkingDelta = "thinking_delta"
	EvThinkingEnd   = "thinking_end"
	EvToolStart     = "toolcall_start"
	EvToolDelta     = "toolcall_delta"
	EvToolEnd       = "toolcall_end"
	EvDone          = "done"
	EvError         = "error"
)

// Event is one pi-ai assistant-message event. Partial is the accumulator as
// it was when the event was emitted; Message is the final message of a done
// event or the failed message of an error event.
type Event struct {
	Type         string   `json:"type"`
	ContentIndex int      `json:"contentIndex"`
	Delta        string   `json:"delta,omitempty"`
	Content      string   `json:"content,omitempty"`
	ToolCall     *Block   `json:"toolCall,omitempty"`
	Reason       string   `json:"reason,omitempty"`
	Partial      *Message `json:"partial,omitempty"`
	Message      *Message `json:"message,omitempty"`
}

// IsTerminal reports whether e ends the stream.
func (e Event) IsTerminal() bool { return e.Type == EvDone || e.Type == EvError }

// IsIndexed reports whether e carries a contentIndex.
func (e Event) IsIndexed() bool {
	switch e.Type {
	case EvStart, EvDone, EvError:
		return false
	}
	return true
}

// Kind is the block type an indexed event refers to ("text", "thinking",
// "toolCall"), or "".
func (e Event) Kind() string {
	switch e.Type {
	case EvTextStart, EvTextDelta, EvTextEnd:
		return "text"
	case EvThinkingStart, EvThinkingDelta, EvThinkingEnd:
		return "thinking"
	case EvToolStart, EvToolDelta, EvToolEnd:
		return "toolCall"
	}
	return ""
}

// Phase is "start", "delta" or "end" for indexed events, else "".
func (e Event) Phase() string {
	switch e.Type {
	case EvTextStart, EvThinkingStart, EvToolStart:
		return "start"
	case EvTextDelta, EvThinkingDelta, EvToolDelta:
		return "delta"
	case EvTextEnd, EvThinkingEnd, EvToolEnd:
		return "end"
	}
	return ""
}

// wireEvent is the JSON shape pi-ai's events have: done carries "message",
// error carries "error", deltas "delta", text/thinking ends "content".
type wireEvent struct {
	Type         string          `json:"type"`
	ContentIndex *int            `json:"contentIndex,omitempty"`
	Delta        *string         `json:"delta,omitempty"`
	Content      *string         `json:"content,omitempty"`
	ToolCall     *Block          `json:"toolCall,omitempty"`
	Reason       string          `json:"reason,omitempty"`
	Partial      *Message        `json:"partial,omitempty"`
	Message      *Message        `json:"message,omitempty"`
	Error        json.RawMessage `json:"error,omitempty"`
}

// MarshalJSON writes e in pi-ai's event shape.
func (e Event) MarshalJSON() ([]byte, error) {
	w := wireEvent{Type: e.Type, ToolCall: e.ToolCall, Reason: e.Reason, Partial: e.Partial}
	if e.IsIndexed() {
		idx := e.ContentIndex
		w.ContentIndex = &idx
	}
	switch e.Phase() {
	case "delta":
		d := e.Delta
		w.Delta = &d
	case "end":
		if e.Type != EvToolEnd {
			c := e.Content
			w.Content = &c
		}
	}
	switch e.Type {
	case EvDone:
		w.Message = e.Message
	case EvError:
		raw, err := json.Marshal(e.Message)
		if err != nil {
			return nil, err
		}
		w.Error = raw
	}
	return json.Marshal(w)
}
