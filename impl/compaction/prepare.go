// Package compaction is pi's compaction preparation
// (packages/agent/src/harness/compaction/compaction.ts prepareCompaction,
// findCutPoint, estimateTokens, and the durable record
// runtime/drive/structural.ts durableCompactionPreparation writes at
// pi.op.preparation). It reads a branch path and decides what an overflow
// or threshold compaction would summarize and what it would keep; it makes
// no provider request.
package compaction

import (
	"fmt"

	"github.com/frameproof/frameproof/impl/pi"
)

// Entry is one committed branch entry: its stored object and the commit
// timestamp pi materializes beside it (ms).
type Entry struct {
	Type      string
	ID        string
	Timestamp float64
	// Raw is the entry object ({id, parentId, type, ...}).
	Raw pi.JSONValue
	// Message is a message entry's message.
	Message pi.JSONValue
}

// ParseEntry reads one stored entry object.
func ParseEntry(raw []byte, timestamp float64) (Entry, error) {
	v, err := pi.ParseJSON(string(raw))
	if err != nil {
		return Entry{}, fmt.Errorf("compaction: entry: %w", err)
	}
	if v.Kind() != pi.Object {
		return Entry{}, fmt.Errorf("compaction: entry is not an object")
	}
	t, _ := str(v, "type")
	id, _ := str(v, "id")
	return Entry{Type: t, ID: id, Timestamp: timestamp, Raw: v, Message: v.Prop("message")}, nil
}

// summaryMessage is createBranchSummaryMessage / createCompactionSummaryMessage
// (messages.ts): {role, summary, fromId|tokensBefore, timestamp}.
func summaryMessage(role string, e Entry) pi.JSONValue {
	o := pi.NewObject()
	o.Set("role", pi.StringValue(role))
	o.Set("summary", e.Raw.Prop("summary"))
	if role == "branchSummary" {
		o.Set("fromId", e.Raw.Prop("fromId"))
	} else {
		o.Set("tokensBefore", e.Raw.Prop("tokensBefore"))
	}
	o.Set("timestamp", pi.NumberValue(e.Timestamp))
	return pi.ObjectValue(o)
}

// isContextMessage is session/context.ts isContextMessage: failed, aborted
// and deferred assistant messages stay out of provider context.
func isContextMessage(m pi.JSONValue) bool {
	role, _ := str(m, "role")
	stop, _ := str(m, "stopReason")
	return role != "assistant" || (stop != "error" && stop != "aborted" && stop != "deferred")
}

// contextMessages is buildContextEntries(path).flatMap(sessionEntryToContextMessages)
// (session/context.ts): from the newest compaction on, its summary and
// retained tail, then each later entry's context messages. An entry of a
// type the switch does not know gives undefined, which flatMap keeps.
func contextMessages(path []Entry) []pi.JSONValue {
	from := 0
	if i := lastCompaction(path); i >= 0 {
		from = i
	}
	var out []pi.JSONValue
	for _, e := range path[from:] {
		switch e.Type {
		case "message":
			if isContextMessage(e.Message) {
				out = append(out, e.Message)
			}
		case "compaction":
			out = append(out, summaryMessage("compactionSummary", e))
			for _, m := range e.Raw.Prop("retainedTail").Array() {
				if isContextMessage(m) {
					out = append(out, m)
				}
			}
		case "branch_summary":
			if s, _ := str(e.Raw, "summary"); s != "" {
				out = append(out, summaryMessage("branchSummary", e))
			}
		case "custom":
		default:
			out = append(out, pi.JSONValue{})
		}
	}
	return out
}

// compactionMessage is getMessageFromEntryForCompaction: a message entry's
// message, a branch summary's summary message, nothing for compactions and
// custom entries.
func compactionMessage(e Entry) (pi.JSONValue, bool) {
	switch e.Type {
	case "message":
		return e.Message, true
	case "branch_summary":
		return summaryMessage("branchSummary", e), true
	}
	return pi.JSONValue{}, false
}

func lastCompaction(path []Entry) int {
	for i := len(path) - 1; i >= 0; i-- {
		if path[i].Type == "compaction" {
			return i
		}
	}
	return -1
}

// keepRecentTokens reads settings.keepRecentTokens as JS would: a TypeError
// (pi's exact V8 text) when settings is undefined or null, else the
// property converted by ToNumber.
func keepRecentTokens(settings pi.JSONValue) (float64, error) {
	switch settings.Kind() {
	case pi.Undefined:
		return 0, fmt.Errorf("Cannot read properties of undefined (reading 'keepRecentTokens')")
	case pi.Null:
		return 0, fmt.Errorf("Cannot read properties of null (reading 'keepRecentTokens')")
	}
	return pi.ToNumber(settings.Prop("keepRecentTokens")), nil
}

// Prepare is prepareCompaction followed by durableCompactionPreparation:
// the pi.op.preparation value for a compaction of path with settings (the
// operation's settings.compaction), or ok=false when there is nothing to
// compact (an empty path, or one that ends in a compaction).
func Prepare(path []Entry, settings pi.JSONValue) (preparation pi.JSONValue, ok bool, err error) {
	if len(path) == 0 || path[len(path)-1].Type == "compaction" {
		return pi.JSONValue{}, false, nil
	}
	prev := lastCompaction(path)
	compactable := path
	var previousSummary pi.JSONValue
	if prev >= 0 {
		previousSummary = path[prev].Raw.Prop("summary")
		compactable = nil
		for _, m := range path[prev].Raw.Prop("retainedTail").Array() {
			compactable = append(compactable, Entry{Type: "message", Timestamp: path[prev].Timestamp, Message: m})
		}
		compactable = append(compactable, path[prev+1:]...)
	}
	tokensBefore, err := EstimateContextTokens(contextMessages(path))
	if err != nil {
		return pi.JSONValue{}, false, err
	}
	keep, err := keepRecentTokens(settings)
	if err != nil {
		return pi.JSONValue{}, false, err
	}
	cut := FindCutPoint(compactable, 0, len(compactable), keep)
	historyEnd := cut.FirstKeptEntryIndex
	if cut.IsSplitTurn {
		historyEnd = cut.TurnStartIndex
	}
	summarize := messagesOf(compactable[:historyEnd])
	var prefix []pi.JSONValue
	if cut.IsSplitTurn {
		prefix = messagesOf(compactable[cut.TurnStartIndex:cut.FirstKeptEntryIndex])
	}
	tail := messagesOf(compactable[cut.FirstKeptEntryIndex:])
	ops := newFileOps()
	if prev >= 0 {
		ops.fromDetails(path[prev].Raw.Prop("details"))
	}
	for _, m := range summarize {
		ops.fromMessage(m)
	}
	for _, m := range prefix {
		ops.fromMessage(m)
	}
	o := pi.NewObject()
	o.Set("kind", pi.StringValue("compaction"))
	o.Set("messagesToSummarize", pi.ArrayValue(summarize))
	o.Set("turnPrefixMessages", pi.ArrayValue(prefix))
	o.Set("retainedTail", pi.ArrayValue(tail))
	o.Set("isSplitTurn", pi.BoolValue(cut.IsSplitTurn))
	o.Set("tokensBefore", pi.NumberValue(tokensBefore))
	if !previousSummary.IsUndefined() {
		o.Set("previousSummary", previousSummary)
	}
	o.Set("fileOps", ops.value())
	o.Set("settings", settings)
	return pi.ObjectValue(o), true, nil
}

func messagesOf(entries []Entry) []pi.JSONValue {
	out := []pi.JSONValue{}
	for _, e := range entries {
		if m, ok := compactionMessage(e); ok {
			out = append(out, m)
		}
	}
	return out
}
