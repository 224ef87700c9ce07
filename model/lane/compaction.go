package lane

import (
	"fmt"
	"math"

	"github.com/frameproof/frameproof/impl/pi"
)

// Compaction is the run's settings.compaction (pi's CompactionSettings).
type Compaction struct {
	Enabled          bool
	ReserveTokens    float64
	KeepRecentTokens float64
}

// JSON is the settings object in pi's DEFAULT_COMPACTION_SETTINGS key order.
func (c Compaction) JSON() string {
	o := pi.NewObject()
	o.Set("enabled", pi.BoolValue(c.Enabled))
	o.Set("reserveTokens", pi.NumberValue(c.ReserveTokens))
	o.Set("keepRecentTokens", pi.NumberValue(c.KeepRecentTokens))
	return string(pi.ObjectValue(o).AppendJSON(nil))
}

// msgOverflowDefault is publishResponse's error text for an overflow that
// carries none.
const msgOverflowDefault = "Assistant request exceeded the context window"

// noCompactionSettings is V8's TypeError when prepareCompaction reads
// keepRecentTokens of a missing settings.compaction.
const noCompactionSettings = "Cannot read properties of undefined (reading 'keepRecentTokens')"

// pathItem is one entry of a bounded branch path as the preparation rules
// see it. The model's lane commits only message entries; compaction
// entries are stated so the rules' "nothing to compact" case is complete.
type pathItem struct {
	id         string
	compaction bool
	message    pi.JSONValue // message entries
	// compaction entries
	summary      pi.JSONValue
	tokensBefore pi.JSONValue
	retained     []pi.JSONValue
	details      pi.JSONValue
	timestamp    float64
}

// branchPath is the committed branch from the tip back to the root (or
// its newest compaction), oldest first.
func (m *Model) branchPath() ([]pathItem, error) {
	byID := map[string]Entry{}
	for _, e := range m.st.Entries {
		byID[e.ID] = e
	}
	var path []pathItem
	for id := m.st.Tip; id != ""; {
		e, ok := byID[id]
		if !ok || len(path) > len(m.st.Entries) {
			return nil, fmt.Errorf("model/lane: branch entry %q is missing or cyclic", id)
		}
		msg, err := pi.ParseJSON(e.Message)
		if err != nil {
			return nil, fmt.Errorf("model/lane: entry %s: %w", e.ID, err)
		}
		path = append([]pathItem{{id: e.ID, message: msg}}, path...)
		id = e.Parent
	}
	return path, nil
}

func jsLen(v pi.JSONValue) float64 {
	if v.Kind() != pi.String {
		return 0
	}
	return float64(pi.UTF16Len(v.Str()))
}

// tokens is estimateTokens: characters by role, divided by four, rounded up.
func tokens(msg pi.JSONValue) float64 {
	var chars float64
	blockChars := func(content pi.JSONValue, assistant bool) float64 {
		if content.Kind() == pi.String {
			return jsLen(content)
		}
		var n float64
		for _, b := range content.Array() {
			kind := b.Prop("type").Str()
			switch {
			case kind == "text":
				n += jsLen(b.Prop("text"))
			case kind == "image" && !assistant:
				n += 4800
			case kind == "thinking" && assistant:
				n += jsLen(b.Prop("thinking"))
			case kind == "toolCall" && assistant:
				args := "undefined"
				if a := b.Prop("arguments"); !a.IsUndefined() {
					args = string(a.AppendJSON(nil))
				}
				n += jsLen(b.Prop("name")) + float64(pi.UTF16Len(args))
			}
		}
		return n
	}
	switch msg.Prop("role").Str() {
	case "user", "toolResult", "custom":
		chars = blockChars(msg.Prop("content"), false)
	case "assistant":
		chars = blockChars(msg.Prop("content"), true)
	case "bashExecution":
		chars = jsLen(msg.Prop("command")) + jsLen(msg.Prop("output"))
	case "branchSummary", "compactionSummary":
		chars = jsLen(msg.Prop("summary"))
	}
	return math.Ceil(chars / 4)
}

// usageTokens is the context size an assistant message reports (0 when its
// usage cannot be used: not assistant, aborted, failed, or not positive).
func usageTokens(msg pi.JSONValue) float64 {
	stop := msg.Prop("stopReason").Str()
	u := msg.Prop("usage")
	if msg.Prop("role").Str() != "assistant" || stop == "aborted" || stop == "error" || u.Kind() != pi.Object {
		return 0
	}
	num := func(k string) float64 {
		if v := u.Prop(k); v.Kind() == pi.Number {
			return v.Number()
		}
		return math.NaN()
	}
	t := num("totalTokens")
	if t == 0 || math.IsNaN(t) {
		t = num("input") + num("output") + num("cacheRead") + num("cacheWrite")
	}
	if t > 0 {
		return t
	}
	return 0
}

// inContext is whether a message reaches provider context: not an assistant
// message that failed, aborted or deferred.
func inContext(msg pi.JSONValue) bool {
	if msg.Prop("role").Str() != "assistant" {
		return true
	}
	switch msg.Prop("stopReason").Str() {
	case "error", "aborted", "deferred":
		return false
	}
	return true
}

// preparation states prepareCompaction + durableCompactionPreparation for a
// path of message entries after an optional leading compaction, and its
// tokensBefore (what pi's shouldCompact reads of it): "" and false when
// there is nothing to compact, an error string when pi throws.
func preparation(path []pathItem, settings *Compaction) (prep string, before float64, ok bool, thrown string) {
	if len(path) == 0 || path[len(path)-1].compaction {
		return "", 0, false, ""
	}
	if settings == nil {
		return "", 0, false, noCompactionSettings
	}
	prev, msgs, ctx := compactable(path)
	keep, split, turnStart := cutAt(msgs, settings.KeepRecentTokens)
	summarizeEnd := keep
	if split {
		summarizeEnd = turnStart
	}
	var prefix []pi.JSONValue
	if split {
		prefix = msgs[turnStart:keep]
	}
	out := pi.NewObject()
	out.Set("kind", pi.StringValue("compaction"))
	out.Set("messagesToSummarize", pi.ArrayValue(append([]pi.JSONValue{}, msgs[:summarizeEnd]...)))
	out.Set("turnPrefixMessages", pi.ArrayValue(append([]pi.JSONValue{}, prefix...)))
	out.Set("retainedTail", pi.ArrayValue(append([]pi.JSONValue{}, msgs[keep:]...)))
	out.Set("isSplitTurn", pi.BoolValue(split))
	before = tokensBefore(ctx)
	out.Set("tokensBefore", pi.NumberValue(before))
	if prev != nil && !prev.summary.IsUndefined() {
		out.Set("previousSummary", prev.summary)
	}
	out.Set("fileOps", fileOps(prev, append(append([]pi.JSONValue(nil), msgs[:summarizeEnd]...), prefix...)))
	s, _ := pi.ParseJSON(settings.JSON())
	out.Set("settings", s)
	return string(pi.ObjectValue(out).AppendJSON(nil)), before, true, ""
}

// compactable is what a path can compact: the newest leading compaction
// (nil if none), its retained tail then the messages after it, and the
// context the model saw (the compaction's summary message, then the
// in-context messages of both).
func compactable(path []pathItem) (prev *pathItem, msgs, ctx []pi.JSONValue) {
	for i := range path {
		if path[i].compaction {
			prev, msgs, ctx = &path[i], append([]pi.JSONValue(nil), path[i].retained...), nil
			o := pi.NewObject()
			o.Set("role", pi.StringValue("compactionSummary"))
			o.Set("summary", path[i].summary)
			o.Set("tokensBefore", path[i].tokensBefore)
			o.Set("timestamp", pi.NumberValue(path[i].timestamp))
			ctx = append(ctx, pi.ObjectValue(o))
			for _, r := range path[i].retained {
				if inContext(r) {
					ctx = append(ctx, r)
				}
			}
			continue
		}
		msgs = append(msgs, path[i].message)
		if inContext(path[i].message) {
			ctx = append(ctx, path[i].message)
		}
	}
	return prev, msgs, ctx
}

// tokensBefore is the context's size: the newest usable usage plus
// estimates after it, or estimates of everything when no usage is usable.
func tokensBefore(ctx []pi.JSONValue) float64 {
	for i := len(ctx) - 1; i >= 0; i-- {
		if u := usageTokens(ctx[i]); u > 0 {
			before := u
			for _, c := range ctx[i+1:] {
				before += tokens(c)
			}
			return before
		}
	}
	var before float64
	for _, c := range ctx {
		before += tokens(c)
	}
	return before
}

// fileOps is the preparation's read/written/edited paths: the previous
// compaction's readFiles and modifiedFiles, then the paths of the read,
// write and edit tool calls in the summarized messages.
func fileOps(prev *pathItem, summarized []pi.JSONValue) pi.JSONValue {
	read, written, edited := newPathSet(), newPathSet(), newPathSet()
	if prev != nil && prev.details.Kind() == pi.Object {
		for _, p := range prev.details.Prop("readFiles").Array() {
			if p.Kind() == pi.String {
				read.add(p.Str())
			}
		}
		for _, p := range prev.details.Prop("modifiedFiles").Array() {
			if p.Kind() == pi.String {
				edited.add(p.Str())
			}
		}
	}
	for _, msg := range summarized {
		if msg.Prop("role").Str() != "assistant" {
			continue
		}
		for _, b := range msg.Prop("content").Array() {
			p := b.Prop("arguments").Prop("path")
			if b.Prop("type").Str() != "toolCall" || p.Kind() != pi.String || p.Str() == "" {
				continue
			}
			switch b.Prop("name").Str() {
			case "read":
				read.add(p.Str())
			case "write":
				written.add(p.Str())
			case "edit":
				edited.add(p.Str())
			}
		}
	}
	ops := pi.NewObject()
	ops.Set("read", read.json())
	ops.Set("written", written.json())
	ops.Set("edited", edited.json())
	return pi.ObjectValue(ops)
}

// cutAt is findCutPoint over compactable messages only (the model's paths
// hold no branch summaries or custom entries, so every message but a tool
// result may start the kept tail): keep counts recent tokens from the end
// until they reach the budget, then keeps from the first cut point at or
// after that message; a kept tail that does not start at a user message
// splits the turn that began at the nearest user or bashExecution message.
func cutAt(msgs []pi.JSONValue, budget float64) (keep int, split bool, turnStart int) {
	canCut := func(i int) bool { return msgs[i].Prop("role").Str() != "toolResult" }
	first := -1
	for i := range msgs {
		if canCut(i) {
			first = i
			break
		}
	}
	if first == -1 {
		return 0, false, -1
	}
	keep = first
	var recent float64
	for i := len(msgs) - 1; i >= 0; i-- {
		recent += tokens(msgs[i])
		if recent >= budget {
			for c := i; c < len(msgs); c++ {
				if canCut(c) {
					keep = c
					break
				}
			}
			break
		}
	}
	if msgs[keep].Prop("role").Str() == "user" {
		return keep, false, -1
	}
	for i := keep; i >= 0; i-- {
		if r := msgs[i].Prop("role").Str(); r == "user" || r == "bashExecution" {
			return keep, true, i
		}
	}
	return keep, false, -1
}

// pathSet keeps paths in first-seen order without repeats (a JS Set).
type pathSet struct {
	seen  map[string]bool
	paths []string
}

func newPathSet() *pathSet { return &pathSet{seen: map[string]bool{}} }

func (s *pathSet) add(p string) {
	if !s.seen[p] {
		s.seen[p] = true
		s.paths = append(s.paths, p)
	}
}

func (s *pathSet) json() pi.JSONValue {
	vs := []pi.JSONValue{}
	for _, p := range s.paths {
		vs = append(vs, pi.StringValue(p))
	}
	return pi.ArrayValue(vs)
}
