package frames

import "github.com/frameproof/frameproof/impl/pi"

// The block start frames' shape, exactly as AppendFrame writes a text or
// thinking block that starts without a signature:
//
//	{"type":"text_start","contentIndex":0,"content":{"type":"text","text":"..."}}
//	{"type":"thinking_start","contentIndex":0,"content":{"type":"thinking","thinking":"..."}}
const (
	textStartOpen     = `{"type":"text_start","contentIndex":`
	textStartBlock    = `,"content":{"type":"text","text":"`
	thinkingStartOpen = `{"type":"thinking_start","contentIndex":`
	thinkingBlock     = `,"content":{"type":"thinking","thinking":"`
	blockStartClose   = `"}}`
)

// applyBlockStart is Apply for a block start frame in the shape above
// whose text is in decodeLiteral's fast shape, once the message is there;
// done is false for any other frame, which the general path reads.
func (r *ValueReducer) applyBlockStart(frame []byte) (done bool, err error) {
	var kind string
	var rest []byte
	switch {
	case len(frame) > len(textStartOpen) && string(frame[:len(textStartOpen)]) == textStartOpen:
		kind, rest = "text", frame[len(textStartOpen):]
	case len(frame) > len(thinkingStartOpen) && string(frame[:len(thinkingStartOpen)]) == thinkingStartOpen:
		kind, rest = "thinking", frame[len(thinkingStartOpen):]
	default:
		return false, nil
	}
	index, rest, ok := plainIndex(rest)
	if !ok || !pi.ToBoolean(r.message) {
		return false, nil
	}
	open := textStartBlock
	if kind == "thinking" {
		open = thinkingBlock
	}
	if len(rest) < len(open)+len(blockStartClose) || string(rest[:len(open)]) != open || string(rest[len(rest)-len(blockStartClose):]) != blockStartClose {
		return false, nil
	}
	text := ""
	if raw := rest[len(open) : len(rest)-len(blockStartClose)]; len(raw) > 0 {
		s, ok := decodeLiteral(nil, raw)
		if !ok {
			return false, nil
		}
		text = string(s)
	}
	o := r.blockObject(kind)
	o.Set("type", pi.StringValue(kind))
	o.Set(kind, pi.StringValue(text))
	r.owned = true
	err = r.appendBlock(pi.NumberValue(index), pi.ObjectValue(o), kind)
	r.owned = false
	return true, err
}

// blockObject is an object to build a block of this kind in: a free one
// whose members are type and kind, in that order (Set replaces their
// values), or a new one.
func (r *ValueReducer) blockObject(kind string) *pi.JSONObject {
	for n := len(r.freeObjects); n > 0; n = len(r.freeObjects) {
		o := r.freeObjects[n-1]
		r.freeObjects = r.freeObjects[:n-1]
		if keys := o.Keys(); len(keys) == 2 && keys[0] == "type" && keys[1] == kind {
			return o
		}
	}
	return pi.NewObject()
}
