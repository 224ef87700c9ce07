// Package codec ties pi-ai's frame codec (impl/frames) to the reader
// semantics of model/frames with rapid properties, and to the real pi-ai
// with differential tests. gen.go holds the stream generators so the
// simulator and other tests can reuse them.
package codec

import (
	"fmt"

	"github.com/frameproof/frameproof/impl/frames"
	"github.com/frameproof/frameproof/impl/pi"
	"pgregory.net/rapid"
)

// Stream is one assistant event stream as the encoder reads it: each event
// carries the live partial as it was at that moment (possibly ahead of the
// event). For an invalid stream WantErr is pi's exact error, thrown by
// Events[ErrAt]; for a valid stream WantErr is "" and ErrAt is -1.
type Stream struct {
	Events  []*pi.Event
	WantErr string
	ErrAt   int
}

// GenStream generates valid streams: 1–8 interleaved text, thinking and
// tool-call blocks; a live partial that runs ahead of the queued events by
// random amounts (also before a block's *_start is read); tool calls that
// start empty or complete (followed by a cumulative JSON prefix); redacted
// thinking complete at start; signatures and namespaces; empty deltas;
// astral and multi-byte text with split surrogate pairs; integer-like and
// nested argument keys; ending in done, an error event, or cut short.
func GenStream() *rapid.Generator[Stream] {
	return rapid.Custom(func(t *rapid.T) Stream { return Stream{Events: genValidEvents(t, 8), ErrAt: -1} })
}

// GenLongStream is GenStream with many more and longer deltas.
func GenLongStream() *rapid.Generator[Stream] {
	return rapid.Custom(func(t *rapid.T) Stream { return Stream{Events: genValidEvents(t, 400), ErrAt: -1} })
}

// GenInvalidStream generates streams that make pi's encoder throw, one
// for each kind of error, with the exact message expected.
func GenInvalidStream() *rapid.Generator[Stream] {
	return rapid.Custom(genInvalid)
}

// step is one thing the provider does: change the live message, then emit
// an event (which is queued; the encoder reads it later).
type step struct {
	apply func(live *pi.AssistantMessage)
	// mid, when set, is the live message half-way through this step: a
	// provider that updates its accumulator in smaller pieces than it emits
	// events (so a start snapshot can cover part of a delta).
	mid   func(live *pi.AssistantMessage)
	event pi.Event
}

type blockPlan struct {
	steps []step
}

func genMeta(t *rapid.T) *pi.AssistantMessage {
	m := &pi.AssistantMessage{
		Content:    []pi.Content{},
		API:        rapid.SampledFrom([]string{"anthropic-messages", "openai-responses", "openai-completions", "google-generative-ai"}).Draw(t, "api"),
		Provider:   rapid.SampledFrom([]string{"anthropic", "openai", "google", "x😀"}).Draw(t, "provider"),
		Model:      rapid.StringMatching(`[a-z0-9.-]{1,12}`).Draw(t, "model"),
		StopReason: pi.StopPending,
		Timestamp:  float64(rapid.Int64Range(0, 1<<45).Draw(t, "ts")),
		Usage: pi.Usage{Input: float64(rapid.IntRange(0, 1e6).Draw(t, "in")), Output: float64(rapid.IntRange(0, 1e6).Draw(t, "out")),
			Cost: pi.Cost{Input: rapid.Float64Range(0, 2).Draw(t, "cost")}},
	}
	if rapid.Bool().Draw(t, "hasResponseModel") {
		m.ResponseModel = pi.Str(m.Model + "-x")
	}
	if rapid.Bool().Draw(t, "hasResponseId") {
		m.ResponseID = pi.Str(rapid.StringMatching(`[a-z0-9_]{0,10}`).Draw(t, "rid"))
	}
	if rapid.Bool().Draw(t, "hasLevel") {
		m.ProviderThinkingLevel = pi.Str("high")
	}
	if rapid.IntRange(0, 4).Draw(t, "hasDiag") == 0 {
		d, _ := pi.ParseJSON(`[{"type":"retry","timestamp":5,"error":{"message":"m"}}]`)
		m.Diagnostics = d
	}
	if rapid.Bool().Draw(t, "hasReasoning") {
		m.Usage.Reasoning = pi.NumPtr(3)
	}
	// Fields the start frame drops: they must not appear in frames.
	m.ErrorMessage = pi.Str("not in frames")
	return m
}

var textPieces = []string{"a", "bc", " ", "é", "€", "😀", "𝄞", "\n", "\"", "\\", "\t", "\u0001", "</script>", "日本", "\u2028"}

// genUnits draws text as UTF-16 code units.
func genUnits(t *rapid.T, label string, maxPieces int) []uint16 {
	parts := rapid.SliceOfN(rapid.SampledFrom(textPieces), 0, maxPieces).Draw(t, label)
	var u []uint16
	for _, p := range parts {
		u = append(u, pi.ToUTF16(p)...)
	}
	return u
}

// splitUnits cuts units into deltas at random code-unit boundaries (which
// may split surrogate pairs) and sprinkles empty deltas.
func splitUnits(t *rapid.T, u []uint16, label string) []string {
	var out []string
	for i := 0; i < len(u); {
		if rapid.IntRange(0, 9).Draw(t, label+"empty") == 0 {
			out = append(out, "")
		}
		n := rapid.IntRange(1, 6).Draw(t, label+"n")
		end := min(len(u), i+n)
		out = append(out, pi.FromUTF16(u[i:end]))
		i = end
	}
	if len(out) == 0 || rapid.IntRange(0, 6).Draw(t, label+"trailEmpty") == 0 {
		out = append(out, "")
	}
	return out
}

func setBlock(live *pi.AssistantMessage, i int, c pi.Content) {
	for len(live.Content) <= i {
		live.Content = append(live.Content, nil)
	}
	live.Content[i] = c
}

func optSig(t *rapid.T, label string) *string {
	if rapid.Bool().Draw(t, label) {
		return pi.Str(rapid.SampledFrom([]string{"", "sig", "c2ln😀", "EqQBCkgIARABGAIiQL"}).Draw(t, label+"v"))
	}
	return nil
}

func textPlan(t *rapid.T, i int, thinking bool, maxPieces int) blockPlan {
	ci := pi.Index(i)
	startT, deltaT, endT := pi.EventTextStart, pi.EventTextDelta, pi.EventTextEnd
	if thinking {
		startT, deltaT, endT = pi.EventThinkingStart, pi.EventThinkingDelta, pi.EventThinkingEnd
	}
	mk := func(text string, sig *string, redacted *bool) pi.Content {
		if thinking {
			return pi.ThinkingContent{Thinking: text, ThinkingSignature: sig, Redacted: redacted}
		}
		return pi.TextContent{Text: text, TextSignature: sig}
	}
	if thinking && rapid.IntRange(0, 4).Draw(t, "redacted") == 0 {
		// Redacted thinking: complete at start, no deltas.
		c := mk("[redacted]", pi.Str("opaque-payload"), pi.BoolPtr(true))
		return blockPlan{steps: []step{
			{apply: func(l *pi.AssistantMessage) { setBlock(l, i, c) }, event: pi.Event{Type: startT, ContentIndex: ci}},
			{apply: func(*pi.AssistantMessage) {}, event: pi.Event{Type: endT, ContentIndex: ci, Content: "[redacted]"}},
		}}
	}
	units := genUnits(t, "text", maxPieces)
	deltas := splitUnits(t, units, "d")
	final := pi.FromUTF16(units)
	sig := optSig(t, "sig")
	var redacted *bool
	if thinking && rapid.IntRange(0, 5).Draw(t, "redFalse") == 0 {
		redacted = pi.BoolPtr(false)
	}
	sigAt := rapid.IntRange(0, len(deltas)).Draw(t, "sigAt") // the signature arrives after delta sigAt
	acc := ""
	plan := blockPlan{steps: []step{{apply: func(l *pi.AssistantMessage) { setBlock(l, i, mk("", nil, nil)) }, event: pi.Event{Type: startT, ContentIndex: ci}}}}
	for k, d := range deltas {
		before := acc
		acc = pi.Concat(acc, d)
		text := acc
		var s *string
		var r *bool
		if k+1 >= sigAt {
			s, r = sig, redacted
		}
		st := step{apply: func(l *pi.AssistantMessage) { setBlock(l, i, mk(text, s, r)) }, event: pi.Event{Type: deltaT, ContentIndex: ci, Delta: d}}
		if du := pi.ToUTF16(d); len(du) > 1 {
			half := pi.Concat(before, pi.FromUTF16(du[:rapid.IntRange(1, len(du)-1).Draw(t, "half")]))
			st.mid = func(l *pi.AssistantMessage) { setBlock(l, i, mk(half, nil, nil)) }
		}
		plan.steps = append(plan.steps, st)
	}
	plan.steps = append(plan.steps, step{apply: func(l *pi.AssistantMessage) { setBlock(l, i, mk(final, sig, redacted)) }, event: pi.Event{Type: endT, ContentIndex: ci, Content: final}})
	return plan
}

var argKeys = []string{"path", "0", "1", "10", "2", "01", "x y", "k😀", "__proto__", "a", "-1"}

func genArgs(t *rapid.T, depth int) string {
	kind := rapid.IntRange(0, 6).Draw(t, "argKind")
	if depth == 0 {
		kind = 5
	}
	if depth > 2 && kind >= 4 {
		kind = 0
	}
	switch kind {
	case 0:
		return pi.QuoteJSON(pi.FromUTF16(genUnits(t, "argStr", 4)))
	case 1:
		return rapid.SampledFrom([]string{"0", "1", "-12.5", "1e21", "3.14", "100"}).Draw(t, "argNum")
	case 2:
		return rapid.SampledFrom([]string{"true", "false", "null"}).Draw(t, "argLit")
	case 3, 4:
		n := rapid.IntRange(0, 3).Draw(t, "argLen")
		s := "["
		for k := 0; k < n; k++ {
			if k > 0 {
				s += ","
			}
			s += genArgs(t, depth+1)
		}
		return s + "]"
	}
	n := rapid.IntRange(0, 4).Draw(t, "argKeys")
	s := "{"
	for k := 0; k < n; k++ {
		if k > 0 {
			s += rapid.SampledFrom([]string{",", ", "}).Draw(t, "comma")
		}
		s += pi.QuoteJSON(rapid.SampledFrom(argKeys).Draw(t, "key")) + ":" + genArgs(t, depth+1)
	}
	return s + "}"
}

func toolPlan(t *rapid.T, i int) blockPlan {
	ci := pi.Index(i)
	id := rapid.StringMatching(`call_[a-z0-9]{1,6}`).Draw(t, "id")
	name := rapid.SampledFrom([]string{"read", "write", "bash", "ns.tool"}).Draw(t, "name")
	jsonText := genArgs(t, 0)
	deltas := splitUnits(t, pi.ToUTF16(jsonText), "j")
	full, err := pi.ParseJSON(jsonText)
	if err != nil {
		panic(fmt.Sprintf("codec: generated invalid tool JSON %q: %v", jsonText, err))
	}
	thought := optSig(t, "thought")
	var ns *string
	if rapid.IntRange(0, 3).Draw(t, "hasNS") == 0 {
		ns = pi.Str("functions")
	}
	completeAtStart := rapid.IntRange(0, 3).Draw(t, "completeAtStart") == 0
	startArgs := pi.EmptyObject()
	if completeAtStart {
		startArgs = full
	}
	mk := func(args pi.JSONValue, sig *string) pi.Content {
		return pi.ToolCall{ID: id, Name: name, Arguments: args, ThoughtSignature: sig, Namespace: ns}
	}
	plan := blockPlan{steps: []step{{apply: func(l *pi.AssistantMessage) { setBlock(l, i, mk(startArgs, nil)) }, event: pi.Event{Type: pi.EventToolCallStart, ContentIndex: ci}}}}
	acc := ""
	for _, d := range deltas {
		acc = pi.Concat(acc, d)
		args := startArgs
		if !completeAtStart {
			args = frames.ParseStreamingJSON(acc)
		}
		plan.steps = append(plan.steps, step{apply: func(l *pi.AssistantMessage) { setBlock(l, i, mk(args, nil)) }, event: pi.Event{Type: pi.EventToolCallDelta, ContentIndex: ci, Delta: d}})
	}
	endCall := pi.ToolCall{ID: id, Name: name, Arguments: full, ThoughtSignature: thought, Namespace: ns}
	plan.steps = append(plan.steps, step{apply: func(l *pi.AssistantMessage) { setBlock(l, i, endCall) }, event: pi.Event{Type: pi.EventToolCallEnd, ContentIndex: ci, ToolCall: &endCall}})
	return plan
}

// genValidEvents builds the provider's steps, interleaves blocks, then lets
// the live partial run ahead of each queued event by a random amount.
func genValidEvents(t *rapid.T, maxPieces int) []*pi.Event {
	meta := genMeta(t)
	n := rapid.IntRange(1, 8).Draw(t, "blocks")
	plans := make([]blockPlan, n)
	for i := range plans {
		switch rapid.IntRange(0, 2).Draw(t, "kind") {
		case 0:
			plans[i] = textPlan(t, i, false, maxPieces)
		case 1:
			plans[i] = textPlan(t, i, true, maxPieces)
		default:
			plans[i] = toolPlan(t, i)
		}
	}
	steps := []step{{apply: func(*pi.AssistantMessage) {}, event: pi.Event{Type: pi.EventStart}}}
	cursor := make([]int, n)
	for {
		var ready []int
		for b := range plans {
			if cursor[b] < len(plans[b].steps) && (b == 0 || cursor[b-1] > 0) {
				ready = append(ready, b)
			}
		}
		if len(ready) == 0 {
			break
		}
		b := ready[rapid.IntRange(0, len(ready)-1).Draw(t, "next")]
		steps = append(steps, plans[b].steps[cursor[b]])
		cursor[b]++
	}
	// Ending: done, an error at a random point, or cut short.
	switch rapid.IntRange(0, 3).Draw(t, "ending") {
	case 0:
		cut := rapid.IntRange(1, len(steps)).Draw(t, "errorAt")
		steps = append(steps[:cut:cut], step{apply: func(l *pi.AssistantMessage) { l.StopReason = pi.StopAborted; l.ErrorMessage = pi.Str("aborted") },
			event: pi.Event{Type: pi.EventError, Reason: pi.StopAborted}})
	case 1:
		steps = steps[:rapid.IntRange(1, len(steps)).Draw(t, "cutAt")]
	default:
		steps = append(steps, step{apply: func(l *pi.AssistantMessage) { l.StopReason = pi.StopStop }, event: pi.Event{Type: pi.EventDone, Reason: pi.StopStop}})
	}
	// Run the provider: snapshot the live message after every step.
	live := meta
	snaps := make([]*pi.AssistantMessage, len(steps))
	mids := make([]*pi.AssistantMessage, len(steps)) // mids[k]: half-way through step k
	for k, s := range steps {
		if s.mid != nil {
			m := live.Clone()
			s.mid(m)
			mids[k] = m
		}
		s.apply(live)
		snaps[k] = live.Clone()
	}
	// The encoder reads event k when the provider has done steps 0..p(k).
	events := make([]*pi.Event, len(steps))
	p := 0
	for k := range steps {
		lag := 0
		if rapid.IntRange(0, 2).Draw(t, "runAhead") == 0 {
			lag = rapid.IntRange(1, 12).Draw(t, "lag")
		}
		p = min(len(steps)-1, max(p, k+lag))
		ev := steps[k].event
		switch ev.Type {
		case pi.EventDone, pi.EventError:
			ev.Message = snaps[len(snaps)-1]
		default:
			ev.Partial = snaps[p]
			if p+1 < len(steps) && mids[p+1] != nil && rapid.IntRange(0, 3).Draw(t, "midStep") == 0 {
				ev.Partial = mids[p+1]
			}
		}
		events[k] = &ev
	}
	return events
}
