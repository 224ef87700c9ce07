package replay

import (
	"encoding/base64"
	"fmt"
	"strings"

	"github.com/frameproof/frameproof/impl/pi"
)

// part is one piece of user-side content: text, or an image the target can
// see. Images the target cannot see are already markers.
type part struct {
	text  string
	image *pi.ImageContent
}

type blockKind uint8

const (
	blockText blockKind = iota
	blockReasoning
	blockCall
)

// asstBlock is one assistant block that crosses, in stored order.
// It keeps the stored block itself (an interface value, two words) rather
// than a copy of its fields, so the planner's block arena stays small.
type asstBlock struct {
	kind    blockKind
	keepSig bool       // blockCall: thoughtSignature is valid for the target
	c       pi.Content // TextContent, signed ThinkingContent (same provider/api/model) or ToolCall
}

func (b *asstBlock) text() string                 { return b.c.(pi.TextContent).Text }
func (b *asstBlock) thinking() pi.ThinkingContent { return b.c.(pi.ThinkingContent) }
func (b *asstBlock) call() pi.ToolCall            { return b.c.(pi.ToolCall) }

// result is the one result bound to a call (or synthesized for it).
type result struct {
	callID  string
	name    string
	isError bool
	parts   []part // never empty
}

// turn is one stored message that crosses: a user turn (a user message or
// prose for unbindable results) or an assistant round with its results.
// Its slices are windows on the planner's shared arenas.
type turn struct {
	assistant bool
	parts     []part      // user
	blocks    []asstBlock // assistant
	results   []result    // assistant: one per call, in call order
}

// settled reports whether an assistant response crosses at all. Errored,
// aborted and unsettled (pending, deferred) responses stay in the record
// but never reach a provider. An unknown stop reason is an error: a new
// reason must be classified here.
func settled(m *pi.AssistantMessage, at int) (bool, error) {
	switch m.StopReason {
	case pi.StopStop, pi.StopLength, pi.StopToolUse:
		return true, nil
	case pi.StopError, pi.StopAborted, pi.StopPending, pi.StopDeferred:
		return false, nil
	}
	return false, fmt.Errorf("replay: message %d: unknown stopReason %q", at, m.StopReason)
}

// callState is what the planner knows about one live call id.
type callState struct {
	bound   int  // message index of its bound result, -1 while none
	emitted bool // already put on the wire
}

// The planner hashes each call id once when it first meets the call and
// once per result; pass 3 finds a call's state through callAt (the calls
// come in the same order as in pass 1) and a result's through boundAt, so
// the map, the one cost that grows with the transcript, is touched as
// little as possible.

// planner holds one projection's working state. Turns, parts, blocks and
// results are cut from a few shared arenas instead of a slice per turn, so
// planning costs a handful of allocations per transcript, not per message.
type planner struct {
	msgs    []pi.Appender
	t       Target
	ids     map[string]int32 // live call id -> index in calls
	calls   []callState
	callAt  []int32 // per settled call with an id, in record order: its index in calls
	nextAt  int     // pass 3's cursor in callAt
	boundAt []bool  // per message: a result bound to its call
	parts   []part
	blocks  []asstBlock
	results []result
}

// cut returns the arena's elements from lo as a window whose capacity ends
// at its length, so no later append through the window can overwrite the
// arena.
func cut[T any](arena []T, lo int) []T {
	if lo == len(arena) {
		return nil
	}
	return arena[lo:len(arena):len(arena)]
}

// plan binds calls to results and decides what crosses. It is O(messages +
// blocks) with a few map lookups per call and result.
func plan(msgs []pi.Appender, t Target) ([]turn, error) {
	p := &planner{msgs: msgs, t: t, ids: make(map[string]int32, len(msgs)/2+1), boundAt: make([]bool, len(msgs)),
		parts: make([]part, 0, len(msgs)), blocks: make([]asstBlock, 0, len(msgs)), results: make([]result, 0, len(msgs)/2+1)}
	// Pass 1: the live calls. A call id used by an earlier live call cannot
	// be bound unambiguously; the reuse is dropped (kept in the record).
	for i, m := range msgs {
		a, ok := m.(*pi.AssistantMessage)
		if !ok {
			continue
		}
		ok, err := settled(a, i)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		for _, c := range a.Content {
			if tc, isCall := c.(pi.ToolCall); isCall && tc.ID != "" {
				k, seen := p.ids[tc.ID]
				if !seen {
					k = int32(len(p.calls))
					p.ids[tc.ID] = k
					p.calls = append(p.calls, callState{bound: -1})
				}
				p.callAt = append(p.callAt, k)
			}
		}
	}
	// Pass 2: the first result for each live call, wherever it is stored,
	// is the bound one (by message index). Every other result degrades to prose.
	for i, m := range msgs {
		if r, ok := m.(*pi.ToolResultMessage); ok {
			if k, live := p.ids[r.ToolCallID]; live && p.calls[k].bound < 0 {
				p.calls[k].bound = i
				p.boundAt[i] = true
			}
		}
	}
	// Pass 3: emit in record order.
	turns := make([]turn, 0, len(msgs))
	for i, m := range msgs {
		switch x := m.(type) {
		case *pi.UserMessage:
			parts, err := p.userParts(x, i)
			if err != nil {
				return nil, err
			}
			if len(parts) > 0 {
				turns = append(turns, turn{parts: parts})
			}
		case *pi.AssistantMessage:
			if ok, _ := settled(x, i); !ok {
				continue
			}
			tr, speaks, err := p.assistantTurn(x, i)
			if err != nil {
				return nil, err
			}
			if speaks {
				turns = append(turns, tr)
			}
		case *pi.ToolResultMessage:
			if p.boundAt[i] {
				continue // crosses next to its call
			}
			parts, err := p.proseParts(x, i)
			if err != nil {
				return nil, err
			}
			turns = append(turns, turn{parts: parts})
		default:
			return nil, fmt.Errorf("replay: message %d: unsupported message type %T", i, m)
		}
	}
	return turns, nil
}

func (p *planner) userParts(m *pi.UserMessage, at int) ([]part, error) {
	if m.Blocks == nil {
		if m.Text == "" {
			return nil, nil
		}
		lo := len(p.parts)
		p.parts = append(p.parts, part{text: m.Text})
		return cut(p.parts, lo), nil
	}
	return p.contentParts(m.Blocks, at)
}

// contentParts maps text and image blocks; empty text is dropped.
func (p *planner) contentParts(blocks []pi.Content, at int) ([]part, error) {
	lo := len(p.parts)
	for j, c := range blocks {
		switch b := c.(type) {
		case pi.TextContent:
			if b.Text != "" {
				p.parts = append(p.parts, part{text: b.Text})
			}
		case pi.ImageContent:
			p.parts = append(p.parts, imagePart(b, p.t))
		case pi.ThinkingContent, pi.ToolCall:
			p.parts = p.parts[:lo]
			return nil, fmt.Errorf("replay: message %d: block %d: %s block in user or tool content", at, j, c.ContentType())
		default:
			p.parts = p.parts[:lo]
			return nil, fmt.Errorf("replay: message %d: block %d: unknown content kind %T", at, j, c)
		}
	}
	return cut(p.parts, lo), nil
}

// imagePart crosses natively when the target sees and the wire accepts the
// media type, and otherwise as an honest unseen marker (base64 never in text).
func imagePart(b pi.ImageContent, t Target) part {
	if t.Vision && wireAcceptsImage(t.Wire, b.MimeType) {
		img := b
		return part{image: &img}
	}
	return part{text: ImageMarker(b.MimeType)}
}

func wireAcceptsImage(wire, mime string) bool {
	if wire == WireAnthropic {
		switch mime {
		case "image/jpeg", "image/png", "image/gif", "image/webp":
			return true
		}
		return false
	}
	return strings.HasPrefix(mime, "image/")
}

// proseParts renders a result that has no call to answer: the named
// success/error line, then its images (native or marker).
func (p *planner) proseParts(r *pi.ToolResultMessage, at int) ([]part, error) {
	var buf [4]string
	texts := buf[:0]
	for j, c := range r.Content {
		switch b := c.(type) {
		case pi.TextContent:
			if b.Text != "" {
				texts = append(texts, b.Text)
			}
		case pi.ImageContent:
		case pi.ThinkingContent, pi.ToolCall:
			return nil, fmt.Errorf("replay: message %d: block %d: %s block in tool result content", at, j, c.ContentType())
		default:
			return nil, fmt.Errorf("replay: message %d: block %d: unknown content kind %T", at, j, c)
		}
	}
	lo := len(p.parts)
	p.parts = append(p.parts, part{text: ResultProse(r.ToolName, strings.Join(texts, "\n"), r.IsError)})
	for _, c := range r.Content {
		if b, ok := c.(pi.ImageContent); ok {
			p.parts = append(p.parts, imagePart(b, p.t))
		}
	}
	return cut(p.parts, lo), nil
}

// assistantTurn is the crossing part of a settled response; speaks is false
// when only reasoning (or nothing) would cross, and then nothing does.
func (p *planner) assistantTurn(m *pi.AssistantMessage, at int) (tr turn, speaks bool, err error) {
	t := p.t
	same := m.Provider == t.Provider && m.Model == t.Model && m.API == t.api()
	blo, rlo := len(p.blocks), len(p.results)
	for j, c := range m.Content {
		switch b := c.(type) {
		case pi.TextContent:
			if b.Text != "" {
				p.blocks = append(p.blocks, asstBlock{kind: blockText, c: c})
				speaks = true
			}
		case pi.ThinkingContent:
			if !same {
				continue
			}
			if reasoningValid(t.Wire, b) {
				p.blocks = append(p.blocks, asstBlock{kind: blockReasoning, c: c})
			}
		case pi.ToolCall:
			if b.ID == "" {
				continue // unbindable: kept in the record, never on the wire
			}
			cs := &p.calls[p.callAt[p.nextAt]]
			p.nextAt++
			if cs.emitted {
				continue // a reused id: kept in the record, never on the wire
			}
			cs.emitted = true
			keep := same && t.Wire == WireGemini && b.ThoughtSignature != nil && validBase64(*b.ThoughtSignature)
			p.blocks = append(p.blocks, asstBlock{kind: blockCall, keepSig: keep, c: c})
			res, err := p.boundResult(b, cs.bound)
			if err != nil {
				return turn{}, false, err
			}
			p.results = append(p.results, res)
			speaks = true
		case pi.ImageContent:
			return turn{}, false, fmt.Errorf("replay: message %d: block %d: image block in assistant content", at, j)
		default:
			return turn{}, false, fmt.Errorf("replay: message %d: block %d: unknown content kind %T", at, j, c)
		}
	}
	if !speaks {
		// A reasoning-only or empty response says nothing; give back its blocks.
		p.blocks = p.blocks[:blo]
		return turn{}, false, nil
	}
	return turn{assistant: true, blocks: cut(p.blocks, blo), results: cut(p.results, rlo)}, true, nil
}

// boundResult is the result bound to call c (message index at, -1 for
// none), or the synthesized did-not-complete answer when none arrived.
func (p *planner) boundResult(c pi.ToolCall, at int) (result, error) {
	if at < 0 {
		lo := len(p.parts)
		p.parts = append(p.parts, part{text: UnfinishedCall})
		return result{callID: c.ID, name: c.Name, isError: true, parts: cut(p.parts, lo)}, nil
	}
	r := p.msgs[at].(*pi.ToolResultMessage)
	parts, err := p.contentParts(r.Content, at)
	if err != nil {
		return result{}, fmt.Errorf("replay: result for call %s: %w", c.ID, err)
	}
	if len(parts) == 0 {
		lo := len(p.parts)
		p.parts = append(p.parts, part{text: NoOutput}) // an empty result still says so
		parts = cut(p.parts, lo)
	}
	return result{callID: c.ID, name: c.Name, isError: r.IsError, parts: parts}, nil
}

// reasoningValid: the stored block carries the proof the wire needs to
// accept it back unchanged.
func reasoningValid(wire string, th pi.ThinkingContent) bool {
	if th.ThinkingSignature == nil || *th.ThinkingSignature == "" {
		return false
	}
	sig := *th.ThinkingSignature
	switch wire {
	case WireAnthropic:
		return true
	case WireOpenAIResponses:
		_, ok := responsesReasoningItem(sig)
		return ok
	case WireGemini:
		return validBase64(sig)
	}
	return false // OpenAI Chat has no reasoning input
}

// responsesReasoningItem parses pi's stored reasoning item (the signature of
// an openai-responses thinking block is the item as JSON).
func responsesReasoningItem(sig string) (pi.JSONValue, bool) {
	v, err := pi.ParseJSON(sig)
	if err != nil || v.Kind() != pi.Object {
		return pi.JSONValue{}, false
	}
	o := v.ObjectValue()
	typ, _ := o.Get("type")
	sum, _ := o.Get("summary")
	if typ.Kind() != pi.String || typ.Str() != "reasoning" || sum.Kind() != pi.Array {
		return pi.JSONValue{}, false
	}
	return v, true
}

func validBase64(s string) bool {
	if s == "" {
		return false
	}
	_, err := base64.StdEncoding.DecodeString(s)
	return err == nil
}
