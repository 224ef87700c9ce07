package lane

import (
	"fmt"

	"github.com/frameproof/frameproof/impl/pi"
)

// sourceFault is the fault a step of a deferred leaf raises before anything
// else, or "" when the leaf's source entry holds a usable handle. pi reads
// the source handle first on every path out of a deferred leaf: the poll
// and the wait (runtime/drive/deferred.ts prepareDeferredPoll, before the
// permit check) and the cancellation (reconcile.ts reconcileOperation,
// before the best-effort cancelDeferred); readDeferredSourceHandle throws a
// SessionInvariantError when the source is no deferred assistant message or
// its handle does not name the operation's model.
func (m *Model) sourceFault(op string, o Op) string {
	if o.At != AtDeferredSuspend && o.At != AtDeferredEffect {
		return ""
	}
	var msg *pi.AssistantMessage
	for _, e := range m.st.Entries {
		if e.ID != o.SourceEntryID {
			continue
		}
		if v, err := pi.ParseJSON(e.Message); err == nil {
			msg, _ = pi.DecodeAssistantMessage(v, "message")
		}
		break
	}
	if msg == nil || msg.StopReason != pi.StopDeferred || msg.Deferred == nil {
		return fmt.Sprintf("Deferred source %s is missing its assistant handle", o.SourceEntryID)
	}
	h, mdl := msg.Deferred, m.ops[op].run.Model
	if h.ID == "" || h.Provider != mdl.Provider || h.ModelID != mdl.ModelID || h.API != msg.API {
		return fmt.Sprintf("Deferred source %s has an invalid handle", o.SourceEntryID)
	}
	return ""
}
