package invariants

import (
	"fmt"

	"github.com/frameproof/frameproof/impl/lane"
	"github.com/frameproof/frameproof/impl/pi"
	"github.com/frameproof/frameproof/impl/store"
)

// ReadView builds the committed part of a View from storage. Storage cannot
// enumerate lists, so the caller names the operations and the list keys
// (e.g. every FramesAddr seen in the frame log).
func ReadView(st store.Storage, ops []string, listKeys []string) (*View, error) {
	v := &View{Ops: map[string]*lane.OpState{}, Results: map[string]bool{}, Lists: map[string][]store.ListElement{}, Entries: map[string]*pi.AssistantMessage{}}
	for _, op := range ops {
		sv, err := st.GetValue(lane.OpStateAddr(op))
		if err != nil {
			return nil, err
		}
		if sv != nil {
			s, err := lane.DecodeState(sv.Value)
			if err != nil {
				return nil, fmt.Errorf("invariants: op %s: %w", op, err)
			}
			v.Ops[op] = s
		} else {
			v.Ops[op] = nil
		}
		rv, err := st.GetValue(lane.ResultAddr(op))
		if err != nil {
			return nil, err
		}
		v.Results[op] = rv != nil
	}
	for _, k := range listKeys {
		var all []store.ListElement
		var cursor *int64
		for {
			page, err := st.ReadList(store.Address{Namespace: lane.NSAssistantFrame, Key: k, Kind: store.KindList}, store.ReadOptions{Cursor: cursor, Limit: 10_000})
			if err != nil {
				return nil, err
			}
			all = append(all, page...)
			if len(page) < 10_000 {
				break
			}
			s := page[len(page)-1].Seq
			cursor = &s
		}
		v.Lists[k] = all
	}
	es, err := st.Entries()
	if err != nil {
		return nil, err
	}
	for _, e := range es {
		pv, err := pi.ParseJSON(string(e.Entry.Raw))
		if err != nil {
			return nil, fmt.Errorf("invariants: entry %s: %w", e.Entry.ID, err)
		}
		mv, _ := pv.ObjectValue().Get("message")
		if role, _ := mv.ObjectValue().Get("role"); role.Str() == "assistant" {
			m, err := pi.DecodeAssistantMessage(mv, "entry.message")
			if err != nil {
				return nil, fmt.Errorf("invariants: entry %s: %w", e.Entry.ID, err)
			}
			v.Entries[e.Entry.ID] = m
		} else {
			v.Entries[e.Entry.ID] = nil
		}
	}
	return v, nil
}
