// Package frames states what a reader of durable frames must see, without
// reference to how pi-ai's encoder gets there.
//
// After events e1..ek of one assistant stream, the observed message is:
//
//   - the metadata of the start event's partial, with no content and
//     stopReason "pending" (the fields the start frame keeps);
//   - per text or thinking block, in start order: until its *_end, the
//     longer (in UTF-16 units) of the block as it was in the partial when
//     *_start was read and the concatenation of all its deltas so far, with
//     the signature fields of that start snapshot; from its *_end on, the
//     end event's content with the signature fields of the partial's block
//     as read at *_end;
//   - per tool call: until its toolcall_end, the start snapshot, whose
//     arguments are replaced by parse(all delta JSON so far) once the delta
//     JSON has caught up with the start arguments (their JSON is "{}", or
//     parse(delta JSON so far) equals them or structurally extends them:
//     strings by prefix, arrays by prefix of equal-or-extending elements,
//     objects by keys each extending); from toolcall_end on, the end event's
//     tool call.
//
// parse is pi-ai's parseStreamingJson, stated by this package's own
// ParseStreamingJSON (written from pi-ai's and partial-json's rules).
package frames

import (
	"math"

	"github.com/frameproof/frameproof/impl/pi"
)

type block struct {
	start    pi.Content // as read at *_start
	deltas   string     // concatenation of deltas (JS semantics)
	caughtUp bool
	end      pi.Content // non-nil after *_end
}

// Observer accumulates events and answers what a reader must see.
type Observer struct {
	started bool
	meta    *pi.AssistantMessage
	blocks  []*block
	byIndex map[int]*block
}

// NewObserver returns an observer for one stream.
func NewObserver() *Observer {
	return &Observer{byIndex: map[int]*block{}}
}

// Observe applies one event of a valid stream.
func (o *Observer) Observe(ev *pi.Event) {
	i := ev.ContentIndex.N
	switch ev.Type {
	case pi.EventStart:
		m := ev.Partial
		o.started = true
		o.meta = &pi.AssistantMessage{Content: []pi.Content{}, API: m.API, Provider: m.Provider, Model: m.Model,
			ResponseModel: m.ResponseModel, ResponseID: m.ResponseID, ProviderThinkingLevel: m.ProviderThinkingLevel,
			Diagnostics: m.Diagnostics, Usage: m.Usage, StopReason: pi.StopPending, Timestamp: m.Timestamp}
	case pi.EventTextStart, pi.EventThinkingStart, pi.EventToolCallStart:
		b := &block{start: ev.Partial.Content[i]}
		if tc, ok := b.start.(pi.ToolCall); ok {
			b.caughtUp = tc.Arguments.String() == "{}"
		}
		o.blocks = append(o.blocks, b)
		o.byIndex[i] = b
	case pi.EventTextDelta, pi.EventThinkingDelta, pi.EventToolCallDelta:
		b := o.byIndex[i]
		b.deltas = pi.Concat(b.deltas, ev.Delta)
		if tc, ok := b.start.(pi.ToolCall); ok && !b.caughtUp {
			b.caughtUp = extends(tc.Arguments, ParseStreamingJSON(b.deltas))
		}
	case pi.EventTextEnd:
		sig := ev.Partial.Content[i].(pi.TextContent).TextSignature
		o.byIndex[i].end = pi.TextContent{Text: ev.Content, TextSignature: sig}
	case pi.EventThinkingEnd:
		p := ev.Partial.Content[i].(pi.ThinkingContent)
		o.byIndex[i].end = pi.ThinkingContent{Thinking: ev.Content, ThinkingSignature: p.ThinkingSignature, Redacted: p.Redacted}
	case pi.EventToolCallEnd:
		o.byIndex[i].end = *ev.ToolCall
	}
}

// Message is the observed message, nil before start.
func (o *Observer) Message() *pi.AssistantMessage {
	if !o.started {
		return nil
	}
	m := *o.meta
	m.Content = []pi.Content{}
	for _, b := range o.blocks {
		m.Content = append(m.Content, b.observed())
	}
	return &m
}

// OpenBlocks is how many started blocks have not ended.
func (o *Observer) OpenBlocks() int {
	n := 0
	for _, b := range o.blocks {
		if b.end == nil {
			n++
		}
	}
	return n
}

// UnsyncedToolJSON is, over open tool calls that have not caught up, the
// bytes of their start arguments' JSON plus their delta JSON so far.
func (o *Observer) UnsyncedToolJSON() int {
	n := 0
	for _, b := range o.blocks {
		if tc, ok := b.start.(pi.ToolCall); ok && b.end == nil && !b.caughtUp {
			n += len(tc.Arguments.String()) + len(b.deltas)
		}
	}
	return n
}

func (b *block) observed() pi.Content {
	if b.end != nil {
		return b.end
	}
	switch s := b.start.(type) {
	case pi.TextContent:
		if pi.UTF16Len(b.deltas) > pi.UTF16Len(s.Text) {
			s.Text = b.deltas
		}
		return s
	case pi.ThinkingContent:
		if pi.UTF16Len(b.deltas) > pi.UTF16Len(s.Thinking) {
			s.Thinking = b.deltas
		}
		return s
	case pi.ToolCall:
		if b.caughtUp && b.deltas != "" {
			s.Arguments = ParseStreamingJSON(b.deltas)
		}
		return s
	}
	return b.start
}

// extends reports whether current equals snapshot or structurally extends it.
func extends(snapshot, current pi.JSONValue) bool {
	if snapshot.String() == current.String() {
		return true
	}
	switch snapshot.Kind() {
	case pi.String:
		return current.Kind() == pi.String && pi.HasPrefixUTF16(current.Str(), snapshot.Str())
	case pi.Array:
		s, c := snapshot.Array(), current.Array()
		if current.Kind() != pi.Array || len(s) > len(c) {
			return false
		}
		for i := range s {
			if !extends(s[i], c[i]) {
				return false
			}
		}
		return true
	case pi.Object:
		if current.Kind() != pi.Object {
			return false
		}
		for _, k := range snapshot.ObjectValue().Keys() {
			sv, _ := snapshot.ObjectValue().Get(k)
			cv, ok := current.ObjectValue().Get(k)
			if !ok || !extends(sv, cv) {
				return false
			}
		}
		return true
	case pi.Number:
		return current.Kind() == pi.Number && sameValue(snapshot.Number(), current.Number())
	}
	return snapshot.Kind() == current.Kind() && snapshot.Bool() == current.Bool()
}

func sameValue(a, b float64) bool {
	if math.IsNaN(a) {
		return math.IsNaN(b)
	}
	return a == b && math.Signbit(a) == math.Signbit(b)
}
