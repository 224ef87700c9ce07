package lanesim

import (
	"encoding/json"

	"github.com/frameproof/frameproof/impl/lane"
	"github.com/frameproof/frameproof/impl/pi"
)

// decodeMemo remembers, for one run, what the checks decode from committed
// bytes: the same op state, entry or frame is read by several checkers of
// one commit (and again at later commits), and each decodes it once. What
// it returns is shared: callers only read it.
type decodeMemo struct {
	states map[string]decodedState // decodeState's
	parsed map[string]parsedJSON   // parseJSON's
	frames map[int64]parsedFrame   // frameAt's
}

// decodeState is lane.DecodeState remembered by the bytes: the checks of
// one commit decode the same op state several times (the commit's writes,
// then the reference read back). The states are shared: callers only read
// them.
func (m *decodeMemo) decodeState(raw []byte) (*lane.OpState, error) {
	if d, ok := m.states[string(raw)]; ok {
		return d.st, d.err
	}
	if m.states == nil {
		m.states = map[string]decodedState{}
	}
	st, err := lane.DecodeState(raw)
	m.states[string(raw)] = decodedState{st, err}
	return st, err
}

type decodedState struct {
	st  *lane.OpState
	err error
}

// parseJSON is pi.ParseJSON remembered by the bytes: a committed entry is
// parsed by the commit's race notes, the invariants' view, the lockstep
// comparison and the wire check. The values are shared: callers only read
// them.
func (m *decodeMemo) parseJSON(raw []byte) (pi.JSONValue, error) {
	if p, ok := m.parsed[string(raw)]; ok {
		return p.v, p.err
	}
	if m.parsed == nil {
		m.parsed = map[string]parsedJSON{}
	}
	v, err := pi.ParseJSON(string(raw))
	m.parsed[string(raw)] = parsedJSON{v, err}
	return v, err
}

// frameAt parses the reference's committed frame of seq once per run:
// invariant 3 and the prefix checks both parse every committed frame, and
// the reference's seqs name its records, so the seq alone keys the memo.
// The frames it returns are only read.
func (m *decodeMemo) frameAt(seq int64, value string) (*pi.Frame, error) {
	if p, ok := m.frames[seq]; ok {
		return p.f, p.err
	}
	if m.frames == nil {
		m.frames = map[int64]parsedFrame{}
	}
	f, err := pi.ParseFrame(value)
	m.frames[seq] = parsedFrame{f, err}
	return f, err
}

type parsedFrame struct {
	f   *pi.Frame
	err error
}

type parsedJSON struct {
	v   pi.JSONValue
	err error
}

func (m *decodeMemo) isAssistantEntry(raw json.RawMessage) bool {
	return m.entryMessage(raw) != nil
}

// entryMessage decodes an entry's assistant message (nil for others).
func (m *decodeMemo) entryMessage(raw json.RawMessage) *pi.AssistantMessage {
	v, err := m.parseJSON(raw)
	if err != nil || v.Kind() != pi.Object {
		return nil
	}
	mv, ok := v.ObjectValue().Get("message")
	if !ok || mv.Kind() != pi.Object {
		return nil
	}
	if role, ok := mv.ObjectValue().Get("role"); !ok || role.Kind() != pi.String || role.Str() != "assistant" {
		return nil
	}
	msg, err := pi.DecodeAssistantMessage(mv, "message")
	if err != nil {
		return nil
	}
	return msg
}
