package provider

import (
	"fmt"
	"io"

	"github.com/frameproof/frameproof/impl/pi"
)

// The adapters stream pi-ai events: StreamPi and HTTPFailurePi hand each
// event to the caller as an impl/pi Event whose Partial is the adapter's
// shared live accumulator as it was when the event was emitted (a deep
// snapshot, converted field by field). Stream and the small Event/Message
// model stay for the contract checker, which compares structure; ToPi and
// FromPi convert between the two without loss:
//
//   - empty optional strings (signatures, responseId, errorMessage,
//     rawStopReason) are absent in pi, Redacted=false is absent, a zero
//     reasoning count is absent;
//   - tool arguments are pi.JSONValue in JS property order (ArgsValue);
//   - the adapters have no clock, so timestamps are 0 and costs are 0 (they
//     depend on a price table, not on the wire). FromPi drops both.

// StreamPi runs the adapter like Stream and emits pi events.
func StreamPi(wire Wire, r io.Reader, meta Meta, opts Options, emit func(*pi.Event)) {
	Stream(wire, r, meta, opts, func(e Event) { emit(e.ToPi()) })
}

// HTTPFailurePi is HTTPFailure emitting a pi event.
func HTTPFailurePi(wire Wire, meta Meta, status int, body []byte, emit func(*pi.Event)) {
	HTTPFailure(wire, meta, status, body, func(e Event) { emit(e.ToPi()) })
}

func optStr(s string) *string {
	if s == "" {
		return nil
	}
	return pi.Str(s)
}

func strOf(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// ToPi converts b to a pi content block.
func (b Block) ToPi() pi.Content {
	switch b.Type {
	case "text":
		return pi.TextContent{Text: b.Text, TextSignature: optStr(b.TextSignature)}
	case "thinking":
		c := pi.ThinkingContent{Thinking: b.Thinking, ThinkingSignature: optStr(b.ThinkingSignature)}
		if b.Redacted {
			c.Redacted = pi.BoolPtr(true)
		}
		return c
	}
	return b.toolCall()
}

func (b Block) toolCall() pi.ToolCall {
	return pi.ToolCall{ID: b.ID, Name: b.Name, Arguments: ArgsValue(b.Arguments), ThoughtSignature: optStr(b.ThoughtSignature)}
}

// ToPi converts m to a pi assistant message (nil stays nil).
func (m *Message) ToPi() *pi.AssistantMessage {
	if m == nil {
		return nil
	}
	out := &pi.AssistantMessage{
		Content:       make([]pi.Content, len(m.Content)),
		API:           m.API,
		Provider:      m.Provider,
		Model:         m.Model,
		ResponseID:    optStr(m.ResponseID),
		StopReason:    pi.StopReason(m.StopReason),
		ErrorMessage:  optStr(m.ErrorMessage),
		RawStopReason: optStr(m.RawStopReason),
		Usage: pi.Usage{Input: float64(m.Usage.Input), Output: float64(m.Usage.Output), CacheRead: float64(m.Usage.CacheRead),
			CacheWrite: float64(m.Usage.CacheWrite), TotalTokens: float64(m.Usage.TotalTokens)},
	}
	if m.Usage.Reasoning != 0 {
		out.Usage.Reasoning = pi.NumPtr(float64(m.Usage.Reasoning))
	}
	for i, b := range m.Content {
		out.Content[i] = b.ToPi()
	}
	return out
}

// ToPi converts e to a pi event: Partial for every non-terminal event,
// Message for done and error.
func (e Event) ToPi() *pi.Event {
	out := &pi.Event{Type: pi.EventType(e.Type), Delta: e.Delta, Content: e.Content, Reason: pi.StopReason(e.Reason)}
	if e.IsIndexed() {
		out.ContentIndex = pi.Index(e.ContentIndex)
	}
	if e.ToolCall != nil {
		tc := e.ToolCall.toolCall()
		out.ToolCall = &tc
	}
	if e.IsTerminal() {
		out.Message = e.Message.ToPi()
	} else {
		out.Partial = e.Partial.ToPi()
	}
	return out
}

// BlockFromPi converts a pi content block back; an unknown block type is an
// error naming it.
func BlockFromPi(c pi.Content) (Block, error) {
	switch x := c.(type) {
	case pi.TextContent:
		return Block{Type: "text", Text: x.Text, TextSignature: strOf(x.TextSignature)}, nil
	case *pi.TextContent:
		return BlockFromPi(*x)
	case pi.ThinkingContent:
		return Block{Type: "thinking", Thinking: x.Thinking, ThinkingSignature: strOf(x.ThinkingSignature), Redacted: x.Redacted != nil && *x.Redacted}, nil
	case *pi.ThinkingContent:
		return BlockFromPi(*x)
	case pi.ToolCall:
		return toolFromPi(x), nil
	case *pi.ToolCall:
		return toolFromPi(*x), nil
	}
	return Block{}, fmt.Errorf("provider: from pi: content block %T is not assistant content", c)
}

func toolFromPi(x pi.ToolCall) Block {
	b := Block{Type: "toolCall", ID: x.ID, Name: x.Name, ThoughtSignature: strOf(x.ThoughtSignature)}
	if !x.Arguments.IsUndefined() {
		b.Arguments = x.Arguments
	}
	return b
}

// MessageFromPi converts a pi assistant message back (nil stays nil).
func MessageFromPi(m *pi.AssistantMessage) (*Message, error) {
	if m == nil {
		return nil, nil
	}
	out := &Message{Role: "assistant", Content: make([]Block, len(m.Content)), API: m.API, Provider: m.Provider, Model: m.Model,
		ResponseID: strOf(m.ResponseID), StopReason: string(m.StopReason), ErrorMessage: strOf(m.ErrorMessage),
		RawStopReason: strOf(m.RawStopReason),
		Usage: Usage{Input: int(m.Usage.Input), Output: int(m.Usage.Output), CacheRead: int(m.Usage.CacheRead),
			CacheWrite: int(m.Usage.CacheWrite), TotalTokens: int(m.Usage.TotalTokens)}}
	if m.Usage.Reasoning != nil {
		out.Usage.Reasoning = int(*m.Usage.Reasoning)
	}
	for i, c := range m.Content {
		b, err := BlockFromPi(c)
		if err != nil {
			return nil, fmt.Errorf("provider: from pi: content[%d]: %w", i, err)
		}
		out.Content[i] = b
	}
	return out, nil
}

// EventFromPi converts a pi event back to the checker's model.
func EventFromPi(e *pi.Event) (Event, error) {
	out := Event{Type: string(e.Type), Delta: e.Delta, Content: e.Content, Reason: string(e.Reason)}
	if out.IsIndexed() {
		if !e.ContentIndex.Valid() {
			return Event{}, fmt.Errorf("provider: from pi: %s: invalid contentIndex %s", e.Type, e.ContentIndex.JS())
		}
		out.ContentIndex = e.ContentIndex.N
	}
	if e.ToolCall != nil {
		b := toolFromPi(*e.ToolCall)
		out.ToolCall = &b
	}
	var err error
	if out.Partial, err = MessageFromPi(e.Partial); err != nil {
		return Event{}, fmt.Errorf("provider: from pi: %s partial: %w", e.Type, err)
	}
	if out.Message, err = MessageFromPi(e.Message); err != nil {
		return Event{}, fmt.Errorf("provider: from pi: %s message: %w", e.Type, err)
	}
	return out, nil
}

// DecodePiEvent parses one event as an external adapter writes it (pi-ai's
// JSON shape, JSON.stringify of the event at push time) into a pi.Event.
// pi.DecodeStreamEvent reads events the way pi-ai's encoder does (members
// its clone helpers do not copy, the providers' streaming scratch such as
// "index", "partialJson" or "streamIndex", are ignored, whatever their
// name), and a terminal event's result as the stream's consumer does.
// Lone surrogates survive as WTF-8.
func DecodePiEvent(data []byte) (*pi.Event, error) {
	v, err := pi.ParseJSON(string(data))
	if err != nil {
		return nil, fmt.Errorf("provider: decode pi event: %w", err)
	}
	out, err := pi.DecodeStreamEvent(v, "event")
	if err != nil {
		return nil, fmt.Errorf("provider: decode pi event: %w", err)
	}
	return out, nil
}
