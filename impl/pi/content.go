package pi

import "fmt"

// Content is one content block: TextContent, ThinkingContent or ToolCall
// in assistant messages; TextContent or ImageContent in user and tool-result
// messages.
type Content interface {
	// ContentType is the block's "type" member.
	ContentType() string
	AppendJSON(dst []byte) []byte
}

// TextContent is {type:"text",text,textSignature?}.
type TextContent struct {
	Text          string
	TextSignature *string
}

// ThinkingContent is {type:"thinking",thinking,thinkingSignature?,redacted?}.
type ThinkingContent struct {
	Thinking          string
	ThinkingSignature *string
	Redacted          *bool
}

// ToolCall is {type:"toolCall",id,name,arguments,thoughtSignature?,namespace?}.
// Arguments is any JSON value after parseStreamingJson, not only an object;
// Undefined means the member is absent.
type ToolCall struct {
	ID               string
	Name             string
	Arguments        JSONValue
	ThoughtSignature *string
	Namespace        *string
}

// ImageContent is {type:"image",data,mimeType}.
type ImageContent struct {
	Data     string
	MimeType string
}

func (TextContent) ContentType() string     { return "text" }
func (ThinkingContent) ContentType() string { return "thinking" }
func (ToolCall) ContentType() string        { return "toolCall" }
func (ImageContent) ContentType() string    { return "image" }

func appendKey(dst []byte, first bool, key string) []byte {
	if !first {
		dst = append(dst, ',')
	}
	dst = AppendQuote(dst, key)
	return append(dst, ':')
}

func appendOptString(dst []byte, key string, s *string) []byte {
	if s == nil {
		return dst
	}
	return AppendQuote(appendKey(dst, false, key), *s)
}

func appendOptBool(dst []byte, key string, b *bool) []byte {
	if b == nil {
		return dst
	}
	return BoolValue(*b).AppendJSON(appendKey(dst, false, key))
}

func appendOptNumber(dst []byte, key string, n *float64) []byte {
	if n == nil {
		return dst
	}
	return NumberValue(*n).AppendJSON(appendKey(dst, false, key))
}

func appendOptValue(dst []byte, key string, v JSONValue) []byte {
	if v.kind == Undefined {
		return dst
	}
	return v.AppendJSON(appendKey(dst, false, key))
}

func (c TextContent) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"type":"text","text":`...)
	dst = AppendQuote(dst, c.Text)
	dst = appendOptString(dst, "textSignature", c.TextSignature)
	return append(dst, '}')
}

func (c ThinkingContent) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"type":"thinking","thinking":`...)
	dst = AppendQuote(dst, c.Thinking)
	dst = appendOptString(dst, "thinkingSignature", c.ThinkingSignature)
	dst = appendOptBool(dst, "redacted", c.Redacted)
	return append(dst, '}')
}

func (c ToolCall) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"type":"toolCall","id":`...)
	dst = AppendQuote(dst, c.ID)
	dst = append(dst, `,"name":`...)
	dst = AppendQuote(dst, c.Name)
	dst = appendOptValue(dst, "arguments", c.Arguments)
	dst = appendOptString(dst, "thoughtSignature", c.ThoughtSignature)
	dst = appendOptString(dst, "namespace", c.Namespace)
	return append(dst, '}')
}

func (c ImageContent) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"type":"image","data":`...)
	dst = AppendQuote(dst, c.Data)
	dst = append(dst, `,"mimeType":`...)
	dst = AppendQuote(dst, c.MimeType)
	return append(dst, '}')
}

// DecodeContent decodes one block of any of the four kinds. allowed lists the
// types the containing message permits.
func DecodeContent(v JSONValue, path string, allowed ...string) (Content, error) {
	return decodeContent(v, path, false, allowed)
}

// DecodeLiveContent is DecodeContent for a provider's live block: members
// pi-ai's clone helpers (cloneTextContent, cloneThinkingContent,
// cloneToolCall) do not copy are ignored, such as the providers' streaming
// scratch ("index", "partialJson", "partialArgs", "streamIndex").
func DecodeLiveContent(v JSONValue, path string, allowed ...string) (Content, error) {
	return decodeContent(v, path, true, allowed)
}

func decodeContent(v JSONValue, path string, whitelist bool, allowed []string) (Content, error) {
	f, err := readFields(v, path)
	if err != nil {
		return nil, err
	}
	f.whitelist = whitelist
	typ := f.str("type")
	if f.err != nil {
		return nil, f.err
	}
	ok := false
	for _, a := range allowed {
		ok = ok || a == typ
	}
	if !ok {
		return nil, &DecodeError{f.at("type"), fmt.Sprintf("unsupported content type %q", typ)}
	}
	var c Content
	switch typ {
	case "text":
		c = TextContent{Text: f.str("text"), TextSignature: f.optStr("textSignature")}
	case "thinking":
		c = ThinkingContent{Thinking: f.str("thinking"), ThinkingSignature: f.optStr("thinkingSignature"), Redacted: f.optBool("redacted")}
	case "toolCall":
		c = ToolCall{ID: f.str("id"), Name: f.str("name"), Arguments: f.get("arguments"),
			ThoughtSignature: f.optStr("thoughtSignature"), Namespace: f.optStr("namespace")}
	case "image":
		c = ImageContent{Data: f.str("data"), MimeType: f.str("mimeType")}
	}
	if err := f.done(); err != nil {
		return nil, err
	}
	return c, nil
}

func decodeContentList(v JSONValue, path string, allowed ...string) ([]Content, error) {
	return decodeContentListAs(v, path, false, allowed...)
}

func decodeContentListAs(v JSONValue, path string, whitelist bool, allowed ...string) ([]Content, error) {
	if v.kind != Array {
		return nil, &DecodeError{path, "expected array, got " + v.kind.String()}
	}
	out := make([]Content, 0, len(v.arr()))
	for i, e := range v.arr() {
		c, err := decodeContent(e, fmt.Sprintf("%s[%d]", path, i), whitelist, allowed)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

func appendContentList(dst []byte, cs []Content) []byte {
	dst = append(dst, '[')
	for i, c := range cs {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = c.AppendJSON(dst)
	}
	return append(dst, ']')
}

// Str returns a pointer to s, for optional fields.
func Str(s string) *string { return &s }

// BoolPtr returns a pointer to b, for optional fields.
func BoolPtr(b bool) *bool { return &b }

// NumPtr returns a pointer to n, for optional fields.
func NumPtr(n float64) *float64 { return &n }
