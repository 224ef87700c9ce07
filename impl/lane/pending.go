package lane

import (
	"bytes"
	"errors"

	"github.com/frameproof/frameproof/impl/pi"
	"github.com/frameproof/frameproof/impl/store"
)

// ErrPendingAssistant is pi's SessionPendingAssistantMessageError
// (session/session.ts): an assistant message still marked pending is never
// persisted as an entry.
var ErrPendingAssistant = errors.New("Cannot persist a pending assistant message")

// refusePending checks every entry insert of a transaction (the session
// mutator's commit check).
func refusePending(writes []store.Write) error {
	for _, w := range writes {
		if w.Kind == store.WriteEntry && w.Entry != nil && isPendingAssistant(w.Entry.Raw) {
			return ErrPendingAssistant
		}
	}
	return nil
}

// isPendingAssistant reports whether an entry's message is an assistant
// message with stopReason "pending". The byte test keeps the common case
// (every settled response) to one scan.
func isPendingAssistant(raw []byte) bool {
	if !bytes.Contains(raw, []byte(`"pending"`)) {
		return false
	}
	v, err := pi.ParseJSON(string(raw))
	if err != nil || v.Kind() != pi.Object {
		return false
	}
	m, ok := v.ObjectValue().Get("message")
	if !ok || m.Kind() != pi.Object {
		return false
	}
	role, _ := m.ObjectValue().Get("role")
	stop, _ := m.ObjectValue().Get("stopReason")
	return role.Kind() == pi.String && role.Str() == "assistant" && stop.Kind() == pi.String && stop.Str() == string(pi.StopPending)
}
