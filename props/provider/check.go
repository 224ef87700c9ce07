package provider

import (
	"encoding/json"
	"fmt"

	"github.com/frameproof/frameproof/impl/pi"
	impl "github.com/frameproof/frameproof/impl/provider"
	"github.com/google/go-cmp/cmp"
)

// The contract rules, each a named verdict.
const (
	RuleStartFirst            = "start-first"              // start is the first event (error may stand alone)
	RuleSingleStart           = "single-start"             // at most one start
	RuleTerminalPresent       = "terminal-present"         // the stream ends with exactly one done/error
	RuleNothingAfter          = "nothing-after-terminal"   // no event follows done/error
	RuleIndexConsistent       = "content-index-consistent" // indexes point at the right, open block of the right type
	RuleSingleBlockStart      = "single-block-start"       // a content index starts once
	RuleTextStartsEmpty       = "text-starts-empty"        // text/thinking (not redacted) start empty
	RuleDeltaOnlyGrowth       = "delta-only-growth"        // open bodies equal start + deltas in every partial
	RuleToolArgs              = "toolcall-args-rule"       // args start empty, or complete then caught up by a delta prefix
	RuleEndMatchesAccum       = "end-matches-accumulated"  // *_end equals what the deltas accumulated
	RuleEndMatchesPartial     = "end-matches-partial"      // *_end equals the partial's block
	RuleBlocksEndedBeforeDone = "blocks-ended-before-done"
	RuleTerminalShape         = "terminal-shape"       // reason and message agree; errors carry a message
	RuleFinalMatchesEvents    = "final-matches-events" // the final message holds what the events ended with
	RuleTerminalExpected      = "terminal-expected"    // done vs error as the scenario demands
	RuleFinalEqualsTruth      = "final-equals-truth"   // done's message equals the truth modulo the wire
	RuleErrorContentPrefix    = "error-content-prefix" // an error's content is a prefix of the truth
)

// Rules lists every verdict name in report order.
var Rules = []string{RuleStartFirst, RuleSingleStart, RuleTerminalPresent, RuleNothingAfter, RuleIndexConsistent,
	RuleSingleBlockStart, RuleTextStartsEmpty, RuleDeltaOnlyGrowth, RuleToolArgs, RuleEndMatchesAccum,
	RuleEndMatchesPartial, RuleBlocksEndedBeforeDone, RuleTerminalShape, RuleFinalMatchesEvents,
	RuleTerminalExpected, RuleFinalEqualsTruth, RuleErrorContentPrefix}

// Violation is one broken rule at one event.
type Violation struct {
	Rule   string `json:"rule"`
	Event  int    `json:"event"` // index into the event list, -1 for the whole stream
	Detail string `json:"detail"`
}

func (v Violation) String() string {
	return fmt.Sprintf("%s at event %d: %s", v.Rule, v.Event, v.Detail)
}

type blockState struct {
	kind          string
	redacted      bool
	startBody     string
	acc           string // deltas joined as JS joins strings (pi.Concat)
	ended         bool
	endBody       string
	endCall       *impl.Block
	startArgs     any
	startComplete bool
	caughtUp      bool
	sawDelta      bool
}

func (b *blockState) body() string { return pi.Concat(b.startBody, b.acc) }

// Check runs every contract rule over events and compares the outcome with
// ex. It never stops at the first violation; each rule reports once per
// event at most.
func Check(events []impl.Event, ex Expected) []Violation {
	var out []Violation
	add := func(rule string, i int, format string, args ...any) {
		out = append(out, Violation{Rule: rule, Event: i, Detail: fmt.Sprintf(format, args...)})
	}
	blocks := map[int]*blockState{}
	started, terminalAt := false, -1
	var terminal *impl.Event
	for i := range events {
		ev := events[i]
		if terminalAt >= 0 {
			add(RuleNothingAfter, i, "%s after %s at event %d", ev.Type, events[terminalAt].Type, terminalAt)
			continue
		}
		switch {
		case ev.Type == impl.EvStart:
			if started {
				add(RuleSingleStart, i, "second start")
			} else if i != 0 {
				add(RuleStartFirst, i, "start is event %d, not the first", i)
			}
			started = true
		case !started && !(ev.Type == impl.EvError && i == 0):
			add(RuleStartFirst, i, "%s before start", ev.Type)
		}
		if ev.IsTerminal() {
			terminalAt, terminal = i, &events[i]
			checkTerminal(ev, i, blocks, add)
			continue
		}
		if !ev.IsIndexed() {
			continue
		}
		checkIndexed(ev, i, blocks, add)
		if ev.Partial != nil {
			checkOpenBodies(ev, i, blocks, add)
		}
	}
	if terminalAt < 0 {
		add(RuleTerminalPresent, -1, "stream ended without done or error")
		return out
	}
	checkOutcome(*terminal, terminalAt, ex, add)
	return out
}

func partialBlock(ev impl.Event) (impl.Block, bool) {
	if ev.Partial == nil || ev.ContentIndex < 0 || ev.ContentIndex >= len(ev.Partial.Content) {
		return impl.Block{}, false
	}
	return ev.Partial.Content[ev.ContentIndex], true
}

type addFn func(rule string, i int, format string, args ...any)

func checkIndexed(ev impl.Event, i int, blocks map[int]*blockState, add addFn) {
	idx, kind := ev.ContentIndex, ev.Kind()
	pb, inPartial := partialBlock(ev)
	if !inPartial {
		add(RuleIndexConsistent, i, "%s contentIndex %d outside the partial's %d blocks", ev.Type, idx, partialLen(ev))
	} else if pb.Type != kind {
		add(RuleIndexConsistent, i, "%s contentIndex %d points at a %s block", ev.Type, idx, pb.Type)
	}
	st := blocks[idx]
	switch ev.Phase() {
	case "start":
		if st != nil {
			add(RuleSingleBlockStart, i, "block %d started again (%s)", idx, ev.Type)
			return
		}
		if inPartial && idx != partialLen(ev)-1 {
			add(RuleIndexConsistent, i, "%s contentIndex %d is not the newest block (%d blocks)", ev.Type, idx, partialLen(ev))
		}
		st = &blockState{kind: kind}
		blocks[idx] = st
		if !inPartial || pb.Type != kind {
			return
		}
		switch kind {
		case "text", "thinking":
			st.redacted = pb.Redacted
			st.startBody = pb.Body()
			if st.startBody != "" && !pb.Redacted {
				add(RuleTextStartsEmpty, i, "%s block %d starts with %q", kind, idx, clip(st.startBody))
			}
		case "toolCall":
			st.startArgs = impl.ArgsValue(pb.Arguments)
			st.startComplete = !impl.IsEmptyArgs(pb.Arguments)
			st.caughtUp = !st.startComplete
		}
		return
	}
	if st == nil {
		add(RuleIndexConsistent, i, "%s for block %d that never started", ev.Type, idx)
		return
	}
	if st.kind != kind {
		add(RuleIndexConsistent, i, "%s for block %d, which is %s", ev.Type, idx, st.kind)
		return
	}
	if st.ended {
		add(RuleIndexConsistent, i, "%s for block %d after its end", ev.Type, idx)
		return
	}
	switch ev.Phase() {
	case "delta":
		st.sawDelta = true
		st.acc = pi.Concat(st.acc, ev.Delta)
		if kind == "toolCall" && st.startComplete && !st.caughtUp {
			if v, ok := strictJSON(st.acc); ok && v.Equal(impl.ArgsValue(st.startArgs)) {
				st.caughtUp = true
			}
		}
	case "end":
		st.ended = true
		switch kind {
		case "text", "thinking":
			st.endBody = ev.Content
			if ev.Content != st.body() {
				add(RuleEndMatchesAccum, i, "%s block %d ends with %q but its start and deltas hold %q", kind, idx, clip(ev.Content), clip(st.body()))
			}
			if inPartial && pb.Body() != ev.Content {
				add(RuleEndMatchesPartial, i, "%s block %d ends with %q but the partial holds %q", kind, idx, clip(ev.Content), clip(pb.Body()))
			}
		case "toolCall":
			if ev.ToolCall == nil {
				add(RuleEndMatchesPartial, i, "toolcall_end for block %d without toolCall", idx)
				return
			}
			st.endCall = ev.ToolCall
			if st.startComplete && !st.caughtUp {
				add(RuleToolArgs, i, "tool call %d started with complete arguments %s but no delta prefix parsed back to them", idx, clipJSON(st.startArgs))
			}
			raw := st.acc
			switch {
			case raw != "":
				if v, ok := strictJSON(raw); !ok {
					add(RuleEndMatchesAccum, i, "tool call %d deltas %q are not complete JSON at its end", idx, clip(raw))
				} else if !v.Equal(impl.ArgsValue(ev.ToolCall.Arguments)) {
					add(RuleEndMatchesAccum, i, "tool call %d ends with %s but its deltas parse to %s", idx, clipJSON(ev.ToolCall.Arguments), clipJSON(v))
				}
			case !impl.IsEmptyArgs(ev.ToolCall.Arguments):
				add(RuleEndMatchesAccum, i, "tool call %d ends with %s but streamed no argument JSON", idx, clipJSON(ev.ToolCall.Arguments))
			}
			if inPartial && !cmp.Equal(normBlock(pb), normBlock(*ev.ToolCall)) {
				add(RuleEndMatchesPartial, i, "tool call %d end differs from the partial: %s", idx, cmp.Diff(normBlock(pb), normBlock(*ev.ToolCall)))
			}
		}
	}
}

// checkOpenBodies holds every open text/thinking block in the partial to its
// start body plus its deltas, and every ended one to its end content.
func checkOpenBodies(ev impl.Event, i int, blocks map[int]*blockState, add addFn) {
	for idx, st := range blocks {
		if st.kind == "toolCall" || idx >= len(ev.Partial.Content) {
			continue
		}
		pb := ev.Partial.Content[idx]
		if pb.Type != st.kind {
			continue
		}
		want := st.body()
		if st.ended {
			want = st.endBody
		}
		if pb.Body() != want {
			add(RuleDeltaOnlyGrowth, i, "partial %s block %d holds %q, events account for %q", st.kind, idx, clip(pb.Body()), clip(want))
		}
	}
}

func checkTerminal(ev impl.Event, i int, blocks map[int]*blockState, add addFn) {
	m := ev.Message
	if m == nil {
		add(RuleTerminalShape, i, "%s without a message", ev.Type)
		return
	}
	switch ev.Type {
	case impl.EvDone:
		if ev.Reason != "stop" && ev.Reason != "length" && ev.Reason != "toolUse" && ev.Reason != "deferred" {
			add(RuleTerminalShape, i, "done with reason %q", ev.Reason)
		}
		if m.StopReason != ev.Reason {
			add(RuleTerminalShape, i, "done reason %q but message stopReason %q", ev.Reason, m.StopReason)
		}
		for idx, st := range blocks {
			if !st.ended {
				add(RuleBlocksEndedBeforeDone, i, "%s block %d never ended", st.kind, idx)
			}
		}
	case impl.EvError:
		if ev.Reason != "error" && ev.Reason != "aborted" {
			add(RuleTerminalShape, i, "error with reason %q", ev.Reason)
		}
		if m.StopReason != ev.Reason {
			add(RuleTerminalShape, i, "error reason %q but message stopReason %q", ev.Reason, m.StopReason)
		}
		if m.ErrorMessage == "" {
			add(RuleTerminalShape, i, "error message is empty")
		}
	}
	if len(m.Content) < len(blocks) {
		add(RuleFinalMatchesEvents, i, "final message has %d blocks, events started %d", len(m.Content), len(blocks))
		return
	}
	for idx, st := range blocks {
		b := m.Content[idx]
		if b.Type != st.kind {
			add(RuleFinalMatchesEvents, i, "final block %d is %s, events said %s", idx, b.Type, st.kind)
			continue
		}
		switch {
		case !st.ended && st.kind != "toolCall":
			if b.Body() != st.body() {
				add(RuleFinalMatchesEvents, i, "final %s block %d holds %q, events account for %q", st.kind, idx, clip(b.Body()), clip(st.body()))
			}
		case st.ended && st.kind != "toolCall":
			if b.Body() != st.endBody {
				add(RuleFinalMatchesEvents, i, "final %s block %d holds %q, its end said %q", st.kind, idx, clip(b.Body()), clip(st.endBody))
			}
		case st.ended && st.endCall != nil:
			if !cmp.Equal(normBlock(b), normBlock(*st.endCall)) {
				add(RuleFinalMatchesEvents, i, "final tool call %d differs from its end: %s", idx, cmp.Diff(normBlock(*st.endCall), normBlock(b)))
			}
		}
	}
}

func checkOutcome(ev impl.Event, i int, ex Expected, add addFn) {
	if ev.Type != ex.Terminal && !ex.Either {
		add(RuleTerminalExpected, i, "ended with %s, the scenario demands %s", ev.Type, ex.Terminal)
		return
	}
	if ev.Message == nil {
		return
	}
	if ev.Type == impl.EvDone {
		if d := diffMessages(ex, *ev.Message); d != "" {
			add(RuleFinalEqualsTruth, i, "final message differs from the truth (-want +got):\n%s", d)
		}
		return
	}
	got := ev.Message.Content
	want := ex.Message.Content
	if len(got) > len(want) {
		add(RuleErrorContentPrefix, i, "error message has %d blocks, the truth only %d", len(got), len(want))
		return
	}
	for k, b := range got {
		w := want[k]
		switch {
		case b.Type != w.Type:
			add(RuleErrorContentPrefix, i, "block %d is %s, the truth has %s", k, b.Type, w.Type)
		case b.Type != "toolCall" && !pi.HasPrefixUTF16(w.Body(), b.Body()): // a cut may end in half a surrogate pair
			add(RuleErrorContentPrefix, i, "%s block %d holds %q, not a prefix of the truth %q", b.Type, k, clip(b.Body()), clip(w.Body()))
		case b.Type == "toolCall" && b.Name != w.Name:
			add(RuleErrorContentPrefix, i, "tool call %d is %q, the truth has %q", k, b.Name, w.Name)
		}
	}
}

// diffMessages compares the wire-carried parts of a final message.
func diffMessages(ex Expected, got impl.Message) string {
	type view struct {
		Content    []impl.Block
		StopReason string
		Usage      impl.Usage
		ResponseID string
	}
	norm := func(m impl.Message) view {
		v := view{StopReason: m.StopReason, Usage: m.Usage, ResponseID: m.ResponseID}
		for k, b := range m.Content {
			b = normBlock(b)
			if ex.WildcardIDs[k] {
				b.ID = "*"
			}
			if ex.JSONSignatures && b.Type == "thinking" && b.ThinkingSignature != "" {
				var v any
				if json.Unmarshal([]byte(b.ThinkingSignature), &v) == nil {
					b.ThinkingSignature = mustJSON(v)
				}
			}
			v.Content = append(v.Content, b)
		}
		return v
	}
	return cmp.Diff(norm(ex.Message), norm(got))
}

func partialLen(ev impl.Event) int {
	if ev.Partial == nil {
		return 0
	}
	return len(ev.Partial.Content)
}

// normBlock gives tool arguments one representation (pi.JSONValue, compared
// with JS semantics) whatever decoded them.
func normBlock(b impl.Block) impl.Block {
	if b.Arguments != nil {
		b.Arguments = impl.ArgsValue(b.Arguments)
	}
	return b
}

// strictJSON is JSON.parse: complete JSON only, JS property order, lone
// surrogates kept.
func strictJSON(s string) (pi.JSONValue, bool) {
	v, err := pi.ParseJSON(s)
	if err != nil {
		return pi.JSONValue{}, false
	}
	return v, true
}

func clip(s string) string {
	if r := []rune(s); len(r) > 60 {
		return string(r[:60]) + "…"
	}
	return s
}

func clipJSON(v any) string {
	if raw, err := pi.Marshal(impl.ArgsValue(v)); err == nil {
		return clip(string(raw))
	}
	return clip(mustJSON(v))
}
