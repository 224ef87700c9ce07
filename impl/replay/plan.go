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
type asstBlock struct {
	kind     blockKind
	text     string              // blockText
	thinking *pi.ThinkingContent // blockReasoning: signed, same provider/api/model
	call     *pi.ToolCall        // blockCall
	keepSig  bool                // blockCall: thoughtSignature is valid for the target
}

// result is the one result bound to a call (or synthesized for it).
type result struct {
	callID  string
	name    string
	isError bool
	parts   []part // never empty
}

// turn is one stored message that crosses: a user turn (a user message or
// prose for unbindable results) or an assistant round with its results.
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

// plan binds calls to results and decides what crosses. It is O(messages +
// blocks) with two map lookups per call and result.
func plan(msgs []pi.Appender, t Target) ([]turn, error) {
	// Pass 1: the live calls. A call id used by an earlier live call cannot
	// be bound unambiguously; the reuse is dropped (kept in the record).
	live := map[string]bool{}
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
			if tc, isCall := c.(pi.ToolCall); isCall && tc.ID != "" && !live[tc.ID] {
				live[tc.ID] = true
			}
		}
	}
	// Pass 2: the first result for each live call, wherever it is stored,
	// is the bound one (by message index). Every other result degrades to prose.
	bound := map[string]int{}
	for i, m := range msgs {
		if r, ok := m.(*pi.ToolResultMessage); ok && live[r.ToolCallID] {
			if _, seen := bound[r.ToolCallID]; !seen {
				bound[r.ToolCallID] = i
			}
		}
	}
	// Pass 3: emit in record order.
	turns := make([]turn, 0, len(msgs))
	emitted := map[string]bool{} // call ids already put on the wire
	for i, m := range msgs {
		switch x := m.(type) {
		case *pi.UserMessage:
			parts, err := userParts(x, i, t)
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
			tr, err := assistantTurn(msgs, x, i, t, bound, emitted)
			if err != nil {
				return nil, err
			}
			if tr != nil {
				turns = append(turns, *tr)
			}
		case *pi.ToolResultMessage:
			if at, ok := bound[x.ToolCallID]; ok && at == i {
				continue // crosses next to its call
			}
			parts, err := proseParts(x, i, t)
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

func userParts(m *pi.UserMessage, at int, t Target) ([]part, error) {
	if m.Blocks == nil {
		if m.Text == "" {
			return nil, nil
		}
		return []part{{text: m.Text}}, nil
	}
	return contentParts(m.Blocks, at, t)
}

// contentParts maps text and image blocks; empty text is dropped.
func contentParts(blocks []pi.Content, at int, t Target) ([]part, error) {
	var out []part
	for j, c := range blocks {
		switch b := c.(type) {
		case pi.TextContent:
			if b.Text != "" {
				out = append(out, part{text: b.Text})
			}
		case pi.ImageContent:
			out = append(out, imagePart(b, t))
		case pi.ThinkingContent, pi.ToolCall:
			return nil, fmt.Errorf("replay: message %d: block %d: %s block in user or tool content", at, j, c.ContentType())
		default:
			return nil, fmt.Errorf("replay: message %d: block %d: unknown content kind %T", at, j, c)
		}
	}
	return out, nil
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
func proseParts(r *pi.ToolResultMessage, at int, t Target) ([]part, error) {
	var texts []string
	var images []part
	for j, c := range r.Content {
		switch b := c.(type) {
		case pi.TextContent:
			if b.Text != "" {
				texts = append(texts, b.Text)
			}
		case pi.ImageContent:
			images = append(images, imagePart(b, t))
		case pi.ThinkingContent, pi.ToolCall:
			return nil, fmt.Errorf("replay: message %d: block %d: %s block in tool result content", at, j, c.ContentType())
		default:
			return nil, fmt.Errorf("replay: message %d: block %d: unknown content kind %T", at, j, c)
		}
	}
	prose := part{text: ResultProse(r.ToolName, strings.Join(texts, "\n"), r.IsError)}
	return append([]part{prose}, images...), nil
}

func assistantTurn(msgs []pi.Appender, m *pi.AssistantMessage, at int, t Target, bound map[string]int, emitted map[string]bool) (*turn, error) {
	same := m.Provider == t.Provider && m.Model == t.Model && m.API == t.api()
	tr := &turn{assistant: true}
	speaks := false // something other than reasoning crosses
	for j, c := range m.Content {
		switch b := c.(type) {
		case pi.TextContent:
			if b.Text != "" {
				tr.blocks = append(tr.blocks, asstBlock{kind: blockText, text: b.Text})
				speaks = true
			}
		case pi.ThinkingContent:
			if same && reasoningValid(t.Wire, b) {
				th := b
				tr.blocks = append(tr.blocks, asstBlock{kind: blockReasoning, thinking: &th})
			}
		case pi.ToolCall:
			if b.ID == "" || emitted[b.ID] {
				continue // unbindable: kept in the record, never on the wire
			}
			emitted[b.ID] = true
			tc := b
			keep := same && t.Wire == WireGemini && b.ThoughtSignature != nil && validBase64(*b.ThoughtSignature)
			tr.blocks = append(tr.blocks, asstBlock{kind: blockCall, call: &tc, keepSig: keep})
			res, err := boundResult(msgs, b, bound, t)
			if err != nil {
				return nil, err
			}
			tr.results = append(tr.results, res)
			speaks = true
		case pi.ImageContent:
			return nil, fmt.Errorf("replay: message %d: block %d: image block in assistant content", at, j)
		default:
			return nil, fmt.Errorf("replay: message %d: block %d: unknown content kind %T", at, j, c)
		}
	}
	if !speaks {
		return nil, nil // a reasoning-only or empty response says nothing
	}
	return tr, nil
}

// boundResult is the result bound to call c (message bound[c.ID]), or the
// synthesized did-not-complete answer when none arrived.
func boundResult(msgs []pi.Appender, c pi.ToolCall, bound map[string]int, t Target) (result, error) {
	at, ok := bound[c.ID]
	if !ok {
		return result{callID: c.ID, name: c.Name, isError: true, parts: []part{{text: UnfinishedCall}}}, nil
	}
	r := msgs[at].(*pi.ToolResultMessage)
	parts, err := contentParts(r.Content, at, t)
	if err != nil {
		return result{}, fmt.Errorf("replay: result for call %s: %w", c.ID, err)
	}
	if len(parts) == 0 {
		parts = []part{{text: NoOutput}} // an empty result still says so
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
		item, ok := responsesReasoningItem(sig)
		return ok && item.Kind() == pi.Object
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
