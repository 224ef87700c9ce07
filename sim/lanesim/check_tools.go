package lanesim

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/frameproof/frameproof/impl/lane"
	"github.com/frameproof/frameproof/impl/pi"
	"github.com/frameproof/frameproof/impl/store"
	"github.com/frameproof/frameproof/sim/campaign"
)

// toolBatchChecker checks, without the model, what pi's tool batch keeps
// durable (runtime/drive/tools.ts, tool-placement.ts) over the acknowledged
// state, after every commit that touches a batch and at the end:
//   - each call of a batch at `tools` stores exactly what its status says:
//     planned nothing; effect_pending its arguments; outcome_ready a staged
//     toolResult answering its call; completed its result entry, chained
//     after the assistant entry and the previous results;
//   - tool arguments, progress and staged results belong to the current
//     operation's batch only (placement and terminal cleanup remove them);
//   - every toolResult entry of the transcript answers a tool call of the
//     nearest assistant entry above it, once.
type toolBatchChecker struct{ r *runner }

func (c *toolBatchChecker) commit(e commitEvent) bool {
	if !touchesTools(e) {
		return true
	}
	return c.check("after commit")
}

func (c *toolBatchChecker) end() { c.check("end of run") }

func (c *toolBatchChecker) check(where string) bool {
	r := c.r
	if r.failed {
		return false
	}
	r.checks++
	op, st := r.refOp()
	err := checkToolState(r.ref, op, st, r.memo.parseJSON)
	return r.check(err == nil, campaign.KindInvariant, "tool batch %s: %v", where, err)
}

// touchesTools: the commit writes a tool namespace, or moves an operation
// into or out of `tools`.
func touchesTools(e commitEvent) bool {
	if e.prev != nil && e.prev.At == lane.LeafTools {
		return true
	}
	for _, w := range e.ws {
		switch w.Namespace {
		case lane.NSToolArgs, lane.NSPendingOutput, lane.NSToolMemo:
			return true
		case lane.NSPendingEntry:
			return true
		}
	}
	return false
}

type parseFunc func([]byte) (pi.JSONValue, error)

// storedEntry is a committed entry: its parent and message.
type storedEntry struct {
	parent  string
	message pi.JSONValue
}

// checkToolState checks the state st holds, whose current operation op is
// at state cur (nil: none).
func checkToolState(st store.Storage, op string, cur *lane.OpState, parse parseFunc) error {
	entries, err := readStoredEntries(st, parse)
	if err != nil {
		return err
	}
	if err := checkResultsPaired(entries); err != nil {
		return err
	}
	if err := checkToolValuesOwned(st, op, cur, parse); err != nil {
		return err
	}
	if cur == nil || cur.At != lane.LeafTools {
		return nil
	}
	return checkBatch(st, op, cur, entries, parse)
}

func readStoredEntries(st store.Storage, parse parseFunc) (map[string]storedEntry, error) {
	es, err := st.Entries()
	if err != nil {
		return nil, fmt.Errorf("read entries: %w", err)
	}
	out := make(map[string]storedEntry, len(es))
	for _, e := range es {
		v, err := parse(e.Entry.Raw)
		if err != nil {
			return nil, fmt.Errorf("entry %s: %w", e.Entry.ID, err)
		}
		se := storedEntry{message: v.Prop("message")}
		if e.Entry.ParentID != nil {
			se.parent = *e.Entry.ParentID
		}
		out[e.Entry.ID] = se
	}
	return out, nil
}

func role(m pi.JSONValue) string {
	if r := m.Prop("role"); r.Kind() == pi.String {
		return r.Str()
	}
	return ""
}

func strProp(v pi.JSONValue, key string) string {
	if s := v.Prop(key); s.Kind() == pi.String {
		return s.Str()
	}
	return ""
}

// checkResultsPaired: each toolResult entry answers, once, a tool call of
// the nearest assistant entry above it (tool results in between).
func checkResultsPaired(entries map[string]storedEntry) error {
	answered := map[string]bool{}
	// in id order, so a run with several violations always reports the same
	for _, id := range slices.Sorted(maps.Keys(entries)) {
		e := entries[id]
		if role(e.message) != "toolResult" {
			continue
		}
		asst, ok := nearestAssistant(entries, e.parent)
		if !ok {
			return fmt.Errorf("tool result entry %s has no assistant entry above it", id)
		}
		call := strProp(e.message, "toolCallId")
		if !hasToolCall(entries[asst].message, call, strProp(e.message, "toolName")) {
			return fmt.Errorf("tool result entry %s answers %s, which is no tool call of assistant entry %s", id, call, asst)
		}
		key := asst + "/" + call
		if answered[key] {
			return fmt.Errorf("tool call %s of assistant entry %s is answered twice (again by %s)", call, asst, id)
		}
		answered[key] = true
	}
	return nil
}

func nearestAssistant(entries map[string]storedEntry, id string) (string, bool) {
	for n := 0; id != "" && n <= len(entries); n++ {
		e, ok := entries[id]
		if !ok {
			return "", false
		}
		switch role(e.message) {
		case "assistant":
			return id, true
		case "toolResult":
			id = e.parent
		default:
			return "", false
		}
	}
	return "", false
}

func hasToolCall(m pi.JSONValue, id, name string) bool {
	for _, b := range m.Prop("content").Array() {
		if strProp(b, "type") == "toolCall" && strProp(b, "id") == id && strProp(b, "name") == name {
			return true
		}
	}
	return false
}

// checkToolValuesOwned: stored arguments and progress belong to the
// current operation while it is at tools, and a staged toolResult to one of
// its outcome_ready calls.
func checkToolValuesOwned(st store.Storage, op string, cur *lane.OpState, parse parseFunc) error {
	atTools := cur != nil && cur.At == lane.LeafTools
	for _, ns := range []string{lane.NSToolArgs, lane.NSPendingOutput} {
		vs, err := st.ScanValues(ns, "")
		if err != nil {
			return fmt.Errorf("scan %s: %w", ns, err)
		}
		for _, v := range vs {
			if !atTools || !strings.HasPrefix(v.Address.Key, op+":") {
				return fmt.Errorf("%s %s outlives its batch (current operation %q at %v)", ns, v.Address.Key, op, leafOf(cur))
			}
		}
	}
	staged := map[string]bool{}
	if atTools {
		for _, c := range cur.Calls {
			staged[c.ResultEntryID] = c.Status == lane.CallOutcomeReady
		}
	}
	vs, err := st.ScanValues(lane.NSPendingEntry, "")
	if err != nil {
		return fmt.Errorf("scan pending entries: %w", err)
	}
	for _, v := range vs {
		p, err := parse(v.Value)
		if err != nil {
			return fmt.Errorf("pending entry %s: %w", v.Address.Key, err)
		}
		if role(p.Prop("payload")) == "toolResult" && !staged[v.Address.Key] {
			return fmt.Errorf("staged tool result %s belongs to no outcome_ready call of the current batch", v.Address.Key)
		}
	}
	return nil
}

func leafOf(s *lane.OpState) string {
	if s == nil {
		return "none"
	}
	return string(s.At)
}

// checkBatch checks each call of the current batch against what its
// status stores.
func checkBatch(st store.Storage, op string, cur *lane.OpState, entries map[string]storedEntry, parse parseFunc) error {
	asst, ok := entries[cur.BatchAssistantEntryID]
	if !ok || role(asst.message) != "assistant" {
		return fmt.Errorf("batch of %s names assistant entry %s, which is not committed", op, cur.BatchAssistantEntryID)
	}
	blocks := asst.message.Prop("content").Array()
	prev := cur.BatchAssistantEntryID
	for _, c := range cur.Calls {
		if c.SourceIndex < 0 || c.SourceIndex >= len(blocks) || strProp(blocks[c.SourceIndex], "type") != "toolCall" {
			return fmt.Errorf("call %s: source index %d names no tool call", c.ResultEntryID, c.SourceIndex)
		}
		block := blocks[c.SourceIndex]
		if err := checkCall(st, op, cur.BatchTurnID, c, block, entries, parse); err != nil {
			return fmt.Errorf("call %s (%s): %w", c.ResultEntryID, c.Status, err)
		}
		if c.Status == lane.CallCompleted {
			if entries[c.ResultEntryID].parent != prev {
				return fmt.Errorf("result entry %s follows %s, not %s", c.ResultEntryID, entries[c.ResultEntryID].parent, prev)
			}
			prev = c.ResultEntryID
		}
	}
	return nil
}

func checkCall(st store.Storage, op, turn string, c lane.PlannedCall, block pi.JSONValue, entries map[string]storedEntry, parse parseFunc) error {
	args, err := st.GetValue(lane.ToolArgsAddr(op, turn, c.SourceIndex))
	if err != nil {
		return err
	}
	pending, err := st.GetValue(lane.PendingEntryAddr(c.ResultEntryID))
	if err != nil {
		return err
	}
	_, placed := entries[c.ResultEntryID]
	switch c.Status {
	case lane.CallPlanned:
		if args != nil || pending != nil || placed {
			return fmt.Errorf("a planned call has stored arguments, a staged result or an entry")
		}
	case lane.CallEffectPending:
		if args == nil || pending != nil || placed {
			return fmt.Errorf("an effect_pending call needs its arguments and no result yet")
		}
		want := block.Prop("arguments").AppendJSON(nil)
		if string(args.Value) != string(want) {
			return fmt.Errorf("stored arguments %s differ from the call's %s", args.Value, want)
		}
	case lane.CallOutcomeReady:
		if pending == nil || placed {
			return fmt.Errorf("an outcome_ready call needs its staged result and no entry")
		}
		p, err := parse(pending.Value)
		if err != nil {
			return err
		}
		return answers(p.Prop("payload"), block)
	case lane.CallCompleted:
		if pending != nil || !placed {
			return fmt.Errorf("a completed call needs its entry and no staged result")
		}
		return answers(entries[c.ResultEntryID].message, block)
	}
	return nil
}

// answers: m is a toolResult for the tool call block.
func answers(m, block pi.JSONValue) error {
	if role(m) != "toolResult" || strProp(m, "toolCallId") != strProp(block, "id") || strProp(m, "toolName") != strProp(block, "name") {
		return fmt.Errorf("result %s does not answer call %s (%s)", m.AppendJSON(nil), strProp(block, "id"), strProp(block, "name"))
	}
	return nil
}
