package lanecmp

import (
	"fmt"
	"sort"

	"github.com/frameproof/frameproof/impl/lane"
	"github.com/frameproof/frameproof/impl/pi"
	"github.com/frameproof/frameproof/impl/store"
	ml "github.com/frameproof/frameproof/model/lane"
)

// inboxOf reads pi.lane.state's inbox items (entryId, kind) in order; an
// item of another shape reads as empty strings, which no model item has.
func inboxOf(ls pi.JSONValue) []ml.InboxItem {
	inbox := ls.Prop("inbox")
	if inbox.Kind() != pi.Array {
		return nil
	}
	var out []ml.InboxItem
	for _, it := range inbox.Array() {
		out = append(out, ml.InboxItem{EntryID: str(it.Prop("entryId")), Kind: str(it.Prop("kind"))})
	}
	return out
}

// readPending lists which of ids have a stored pi.pending.entry value,
// ascending (storage cannot enumerate what the model never queued, so the
// caller names every id ever queued).
func readPending(st store.Storage, ids []string) ([]string, error) {
	var out []string
	for _, id := range ids {
		v, err := st.GetValue(store.Address{Namespace: lane.NSPendingEntry, Key: id, Kind: store.KindValue})
		if err != nil {
			return nil, fmt.Errorf("lanecmp: read pending entry %s: %w", id, err)
		}
		if v != nil {
			out = append(out, id)
		}
	}
	sort.Strings(out)
	return out, nil
}
