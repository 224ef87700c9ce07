package pi

// EventType names the 12 assistant stream events.
type EventType string

const (
	EventStart         EventType = "start"
	EventTextStart     EventType = "text_start"
	EventTextDelta     EventType = "text_delta"
	EventTextEnd       EventType = "text_end"
	EventThinkingStart EventType = "thinking_start"
	EventThinkingDelta EventType = "thinking_delta"
	EventThinkingEnd   EventType = "thinking_end"
	EventToolCallStart EventType = "toolcall_start"
	EventToolCallDelta EventType = "toolcall_delta"
	EventToolCallEnd   EventType = "toolcall_end"
	EventDone          EventType = "done"
	EventError         EventType = "error"
)

// EventTypes lists all 12 event types.
var EventTypes = []EventType{EventStart, EventTextStart, EventTextDelta, EventTextEnd,
	EventThinkingStart, EventThinkingDelta, EventThinkingEnd, EventToolCallStart,
	EventToolCallDelta, EventToolCallEnd, EventDone, EventError}

// Event is one AssistantMessageEvent. Which members are meaningful depends
// on Type:
//
//	start                          Partial
//	text_start/thinking_start/toolcall_start   ContentIndex, Partial
//	*_delta                        ContentIndex, Delta, Partial
//	text_end/thinking_end          ContentIndex, Content, Partial
//	toolcall_end                   ContentIndex, ToolCall, Partial
//	done                           Reason, Message ("message")
//	error                          Reason, Message ("error")
//
// Partial is the provider's shared live accumulator as it was when the
// encoder read the event; it may run ahead of the event.
type Event struct {
	Type         EventType
	ContentIndex ContentIndex
	Delta        string
	Content      string
	ToolCall     *ToolCall
	Reason       StopReason
	Message      *AssistantMessage
	Partial      *AssistantMessage
}

func (e *Event) hasIndex() bool {
	return e.Type != EventStart && e.Type != EventDone && e.Type != EventError
}

// AppendJSON writes the event in pi's member order.
func (e *Event) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"type":`...)
	dst = AppendQuote(dst, string(e.Type))
	switch e.Type {
	case EventDone, EventError:
		dst = append(dst, `,"reason":`...)
		dst = AppendQuote(dst, string(e.Reason))
		key := "message"
		if e.Type == EventError {
			key = "error"
		}
		if e.Message != nil {
			dst = e.Message.AppendJSON(appendKey(dst, false, key))
		}
		return append(dst, '}')
	}
	if e.hasIndex() && e.ContentIndex.Invalid != "undefined" {
		dst = e.ContentIndex.appendJSON(append(dst, `,"contentIndex":`...))
	}
	switch e.Type {
	case EventTextDelta, EventThinkingDelta, EventToolCallDelta:
		dst = AppendQuote(append(dst, `,"delta":`...), e.Delta)
	case EventTextEnd, EventThinkingEnd:
		dst = AppendQuote(append(dst, `,"content":`...), e.Content)
	case EventToolCallEnd:
		if e.ToolCall != nil {
			dst = e.ToolCall.AppendJSON(append(dst, `,"toolCall":`...))
		}
	}
	if e.Partial != nil {
		dst = e.Partial.AppendJSON(append(dst, `,"partial":`...))
	}
	return append(dst, '}')
}

func (e *Event) MarshalJSON() ([]byte, error) { return e.AppendJSON(nil), nil }

// UnmarshalJSON reads the event as ParseStreamEvent does (a terminal
// event's result included).
func (e *Event) UnmarshalJSON(data []byte) error {
	d, err := ParseStreamEvent(string(data))
	if err != nil {
		return err
	}
	*e = *d
	return nil
}

// ParseEvent parses one event from JSON text as DecodeEvent reads it.
func ParseEvent(s string) (*Event, error) {
	v, err := ParseJSON(s)
	if err != nil {
		return nil, err
	}
	return DecodeEvent(v, "$")
}

// ParseStreamEvent parses one event from JSON text as DecodeStreamEvent
// reads it.
func ParseStreamEvent(s string) (*Event, error) {
	v, err := ParseJSON(s)
	if err != nil {
		return nil, err
	}
	return DecodeStreamEvent(v, "$")
}

// DecodeEvent maps a parsed value onto Event as pi-ai's
// AssistantMessageFrameEncoder.encode reads it: only the members it names,
// the live partial and its blocks through clone helpers that name theirs,
// so every other member (the providers' streaming scratch such as "index",
// "partialJson" or "streamIndex" on blocks, or anything on the event or
// message) is ignored rather than rejected. What pi copies whole (usage,
// diagnostics, tool arguments) is kept or checked whole. Of a done or error
// event the encoder reads the type alone, so Reason and Message stay
// empty whatever the event holds; DecodeStreamEvent reads the result too.
func DecodeEvent(v JSONValue, path string) (*Event, error) {
	return decodeEvent(v, path, false)
}

// DecodeStreamEvent is DecodeEvent plus, of a done or error event, what a
// stream's consumer reads: the result pi-ai's AssistantMessageEventStream
// returns (its "message" or "error" member, read as DecodeLiveMessage
// reads a partial) and the "reason", which pi never reads but frameproof's
// provider rules check against the result's stopReason.
func DecodeStreamEvent(v JSONValue, path string) (*Event, error) {
	return decodeEvent(v, path, true)
}

func decodeEvent(v JSONValue, path string, result bool) (*Event, error) {
	f, err := readFields(v, path)
	if err != nil {
		return nil, err
	}
	f.whitelist = true
	e := &Event{Type: EventType(f.str("type"))}
	if f.err != nil {
		return nil, f.err
	}
	known := false
	for _, t := range EventTypes {
		known = known || t == e.Type
	}
	if !known {
		// pi-ai's encoder reads nothing else of an event type it does not
		// know: before start it throws "Assistant message X event appears
		// before start", after start it returns undefined.
		e.ContentIndex = ContentIndex{Invalid: "undefined"}
		return e, nil
	}
	msgKey := "partial"
	switch e.Type {
	case EventDone:
		msgKey = "message"
	case EventError:
		msgKey = "error"
	}
	if e.Type == EventDone || e.Type == EventError {
		if !result {
			return e, nil
		}
		e.Reason = StopReason(f.str("reason"))
	}
	if e.hasIndex() {
		e.ContentIndex = f.index("contentIndex")
	}
	switch e.Type {
	case EventTextDelta, EventThinkingDelta, EventToolCallDelta:
		e.Delta = f.str("delta")
	case EventTextEnd, EventThinkingEnd:
		e.Content = f.str("content")
	case EventToolCallEnd:
		tc, err := DecodeLiveContent(f.get("toolCall"), f.at("toolCall"), "toolCall")
		if err != nil {
			return nil, err
		}
		c := tc.(ToolCall)
		e.ToolCall = &c
	}
	if f.err != nil {
		return nil, f.err
	}
	if m := f.get(msgKey); m.kind != Undefined {
		msg, err := DecodeLiveMessage(m, f.at(msgKey))
		if err != nil {
			return nil, err
		}
		if msgKey == "partial" {
			e.Partial = msg
		} else {
			e.Message = msg
		}
	}
	return e, f.done()
}
