package pi

import "fmt"

// FrameType names the 11 durable frame kinds.
type FrameType string

const (
	FrameStart              FrameType = "start"
	FrameTextStart          FrameType = "text_start"
	FrameTextDelta          FrameType = "text_delta"
	FrameTextEnd            FrameType = "text_end"
	FrameThinkingStart      FrameType = "thinking_start"
	FrameThinkingDelta      FrameType = "thinking_delta"
	FrameThinkingEnd        FrameType = "thinking_end"
	FrameToolCallStart      FrameType = "toolcall_start"
	FrameToolCallCheckpoint FrameType = "toolcall_checkpoint"
	FrameToolCallDelta      FrameType = "toolcall_delta"
	FrameToolCallEnd        FrameType = "toolcall_end"
)

// FrameTypes lists all 11 frame types.
var FrameTypes = []FrameType{FrameStart, FrameTextStart, FrameTextDelta, FrameTextEnd,
	FrameThinkingStart, FrameThinkingDelta, FrameThinkingEnd, FrameToolCallStart,
	FrameToolCallCheckpoint, FrameToolCallDelta, FrameToolCallEnd}

// Frame is one AssistantMessageFrame. Members by Type:
//
//	start                 Partial
//	text_start            ContentIndex, Block (TextContent)        → "content"
//	thinking_start        ContentIndex, Block (ThinkingContent)    → "content"
//	toolcall_start        ContentIndex, Block (ToolCall)           → "toolCall"
//	*_delta               ContentIndex, Delta
//	toolcall_checkpoint   ContentIndex, JSON
//	text_end              ContentIndex, Content, TextSignature?
//	thinking_end          ContentIndex, Content, ThinkingSignature?, Redacted?
//	toolcall_end          ContentIndex, ID, Name, Arguments, ThoughtSignature?, Namespace?
type Frame struct {
	Type              FrameType
	ContentIndex      ContentIndex
	Partial           *AssistantMessage
	Block             Content
	Delta             string
	JSON              string
	Content           string
	TextSignature     *string
	ThinkingSignature *string
	Redacted          *bool
	ID                string
	Name              string
	Arguments         JSONValue
	ThoughtSignature  *string
	Namespace         *string
}

// AppendJSON writes the frame exactly as JSON.stringify writes pi's frame.
func (f *Frame) AppendJSON(dst []byte) []byte {
	if f.Type == FrameStart {
		return AppendStartFrame(dst, f.Partial)
	}
	dst = append(dst, `{"type":`...)
	dst = AppendQuote(dst, string(f.Type))
	dst = appendFrameIndex(dst, f.ContentIndex)
	switch f.Type {
	case FrameTextStart, FrameThinkingStart, FrameToolCallStart:
		key := `,"content":`
		if f.Type == FrameToolCallStart {
			key = `,"toolCall":`
		}
		if f.Block != nil {
			dst = f.Block.AppendJSON(append(dst, key...))
		}
	case FrameTextDelta, FrameThinkingDelta, FrameToolCallDelta:
		return appendDeltaMember(dst, f.Delta)
	case FrameToolCallCheckpoint:
		dst = AppendQuote(append(dst, `,"json":`...), f.JSON)
	case FrameTextEnd:
		dst = AppendQuote(append(dst, `,"content":`...), f.Content)
		dst = appendOptString(dst, "textSignature", f.TextSignature)
	case FrameThinkingEnd:
		dst = AppendQuote(append(dst, `,"content":`...), f.Content)
		dst = appendOptString(dst, "thinkingSignature", f.ThinkingSignature)
		dst = appendOptBool(dst, "redacted", f.Redacted)
	case FrameToolCallEnd:
		dst = AppendQuote(append(dst, `,"id":`...), f.ID)
		dst = AppendQuote(append(dst, `,"name":`...), f.Name)
		dst = appendOptValue(dst, "arguments", f.Arguments)
		dst = appendOptString(dst, "thoughtSignature", f.ThoughtSignature)
		dst = appendOptString(dst, "namespace", f.Namespace)
	}
	return append(dst, '}')
}

// AppendStartFrame writes the start frame with partial m (none when nil)
// exactly as (&Frame{Type: FrameStart, Partial: m}).AppendJSON does, since
// that calls it. Unlike a Frame's Partial, which the interface call on its
// Block sends to the heap, m may live on the caller's stack.
func AppendStartFrame(dst []byte, m *AssistantMessage) []byte {
	dst = append(dst, `{"type":"start"`...)
	if m != nil {
		dst = m.AppendJSON(append(dst, `,"partial":`...))
	}
	return append(dst, '}')
}

// AppendDeltaFrame writes the delta frame {type, contentIndex, delta} exactly
// as (&Frame{Type: t, ContentIndex: i, Delta: delta}).AppendJSON does, without
// building the Frame: the per-event hot path of a frame log. t should be one
// of the three *_delta types; any other type is still quoted correctly.
func AppendDeltaFrame(dst []byte, t FrameType, i ContentIndex, delta string) []byte {
	return AppendDeltaFrameTail(AppendDeltaFrameHead(dst, t, i), delta)
}

// AppendDeltaFrameHead writes a delta frame up to its delta's opening quote,
// {"type":"<t>","contentIndex":<i>,"delta":" — the same for every delta of
// a block, so a writer may keep it and append AppendDeltaFrameTail to it.
func AppendDeltaFrameHead(dst []byte, t FrameType, i ContentIndex) []byte {
	switch t {
	case FrameTextDelta:
		dst = append(dst, `{"type":"text_delta"`...)
	case FrameThinkingDelta:
		dst = append(dst, `{"type":"thinking_delta"`...)
	case FrameToolCallDelta:
		dst = append(dst, `{"type":"toolcall_delta"`...)
	default:
		dst = AppendQuote(append(dst, `{"type":`...), string(t))
	}
	if i.Invalid == "" && uint(i.N) < 10 {
		dst = append(append(dst, `,"contentIndex":`...), byte('0'+i.N)) // the common case
	} else {
		dst = appendFrameIndex(dst, i)
	}
	return append(dst, `,"delta":"`...)
}

// AppendDeltaFrameTail writes a delta frame after its head: the delta as
// JSON.stringify escapes it, its closing quote and the frame's '}'.
func AppendDeltaFrameTail(dst []byte, delta string) []byte {
	return append(appendQuoted(dst, delta), '"', '}')
}

// appendFrameIndex writes the contentIndex member; a decoded frame whose
// index was undefined has none (JSON.stringify omits undefined members).
func appendFrameIndex(dst []byte, i ContentIndex) []byte {
	if i.Invalid == "undefined" {
		return dst
	}
	return i.appendJSON(append(dst, `,"contentIndex":`...))
}

// appendDeltaMember writes `,"delta":"..."}`, closing the frame.
func appendDeltaMember(dst []byte, delta string) []byte {
	return AppendDeltaFrameTail(append(dst, `,"delta":"`...), delta)
}

func (f *Frame) MarshalJSON() ([]byte, error) { return f.AppendJSON(nil), nil }

func (f *Frame) UnmarshalJSON(data []byte) error {
	d, err := ParseFrame(string(data))
	if err != nil {
		return err
	}
	*f = *d
	return nil
}

// ParseFrame parses one frame from JSON text.
func ParseFrame(s string) (*Frame, error) {
	v, err := ParseJSON(s)
	if err != nil {
		return nil, err
	}
	return DecodeFrame(v, "$")
}

// DecodeFrame maps a parsed value onto Frame. A *_start frame may carry a
// block of another kind (pi reports that when reducing), so any assistant
// block type is accepted there.
func DecodeFrame(v JSONValue, path string) (*Frame, error) {
	f, err := readFields(v, path)
	if err != nil {
		return nil, err
	}
	fr := &Frame{Type: FrameType(f.str("type"))}
	if f.err != nil {
		return nil, f.err
	}
	known := false
	for _, t := range FrameTypes {
		known = known || t == fr.Type
	}
	if !known {
		return nil, &DecodeError{f.at("type"), fmt.Sprintf("unknown frame type %q", fr.Type)}
	}
	if fr.Type == FrameStart {
		m, err := DecodeAssistantMessage(f.get("partial"), f.at("partial"))
		if err != nil {
			return nil, err
		}
		fr.Partial = m
		return fr, f.done()
	}
	fr.ContentIndex = f.index("contentIndex")
	switch fr.Type {
	case FrameTextStart, FrameThinkingStart, FrameToolCallStart:
		key := "content"
		if fr.Type == FrameToolCallStart {
			key = "toolCall"
		}
		if fr.Block, err = DecodeContent(f.get(key), f.at(key), "text", "thinking", "toolCall", "image"); err != nil {
			return nil, err
		}
	case FrameTextDelta, FrameThinkingDelta, FrameToolCallDelta:
		fr.Delta = f.str("delta")
	case FrameToolCallCheckpoint:
		fr.JSON = f.str("json")
	case FrameTextEnd:
		fr.Content = f.str("content")
		fr.TextSignature = f.optStr("textSignature")
	case FrameThinkingEnd:
		fr.Content = f.str("content")
		fr.ThinkingSignature = f.optStr("thinkingSignature")
		fr.Redacted = f.optBool("redacted")
	case FrameToolCallEnd:
		fr.ID = f.str("id")
		fr.Name = f.str("name")
		fr.Arguments = f.get("arguments")
		fr.ThoughtSignature = f.optStr("thoughtSignature")
		fr.Namespace = f.optStr("namespace")
	}
	return fr, f.done()
}
