package corpus

import (
	"encoding/json"
	"fmt"

	"github.com/frameproof/frameproof/impl/frames"
	"github.com/frameproof/frameproof/impl/pi"
)

// GoCodec is frameproof's own codec (impl/frames) behind the Codec
// interface. Inputs are decoded from the raw JSON exactly as a protocol
// peer would receive them; an event or frame impl/pi cannot decode is
// reported as a thrown error (so it shows up as a failed vector, never as a
// pass).
type GoCodec struct{}

var _ Codec = GoCodec{}

// Encode implements Codec.
func (GoCodec) Encode(events []json.RawMessage) ([]json.RawMessage, int, string, error) {
	enc := frames.NewEncoder()
	out := make([]json.RawMessage, 0, len(events))
	for i, raw := range events {
		ev, err := pi.ParseEvent(string(raw))
		if err != nil {
			return out, i, fmt.Sprintf("frameproof: decode event %d: %v", i, err), nil
		}
		f, err := enc.Encode(ev)
		if err != nil {
			return out, i, err.Error(), nil
		}
		if f == nil {
			out = append(out, json.RawMessage("null"))
			continue
		}
		out = append(out, f.AppendJSON(nil))
	}
	return out, -1, "", nil
}

// Reduce implements Codec.
func (GoCodec) Reduce(raw []json.RawMessage) (json.RawMessage, string, error) {
	fs := make([]pi.Frame, len(raw))
	for i, r := range raw {
		f, err := pi.ParseFrame(string(r))
		if err != nil {
			return nil, fmt.Sprintf("frameproof: decode frame %d: %v", i, err), nil
		}
		fs[i] = *f
	}
	m, err := frames.Reduce(fs)
	if err != nil {
		return nil, err.Error(), nil
	}
	if m == nil {
		return json.RawMessage("null"), "", nil
	}
	return m.AppendJSON(nil), "", nil
}

// ParseStreamingJSON implements Codec.
func (GoCodec) ParseStreamingJSON(inputs []json.RawMessage) ([]json.RawMessage, error) {
	out := make([]json.RawMessage, len(inputs))
	for i, in := range inputs {
		s, err := pi.ParseJSON(string(in))
		if err != nil || s.Kind() != pi.String {
			return nil, fmt.Errorf("corpus: parse: input %d is not a JSON string literal", i)
		}
		out[i] = frames.ParseStreamingJSON(s.Str()).AppendJSON(nil)
	}
	return out, nil
}
