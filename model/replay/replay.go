// Package replay is the reference projection: a stored transcript → a wire
// request body, written as plainly as possible. Every question ("is this call
// answered?", "is this result the bound one?") is answered by scanning the
// whole transcript again, so each rule reads as one sentence. It is
// quadratic and meant for small transcripts; impl/replay is the fast one.
// Both must produce the same bytes.
package replay

import (
	"encoding/base64"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/frameproof/frameproof/impl/pi"
)

// Target mirrors impl/replay.Target.
type Target struct {
	Wire     string
	Provider string
	Model    string
	Vision   bool
}

// Principal mirrors impl/replay.Principal.
type Principal struct {
	Agent           string
	Borrowed        bool
	UID             int
	Account         string
	ExpectedAccount string
	Node            string
}

// The strings of the spec, spelled out again on purpose (not imported).
const (
	unfinished     = "This call did not complete — the turn ended before its result arrived."
	noOutput       = "(no output)"
	seeImage       = "(see attached image)"
	imagesLeadIn   = "Attached image(s) from tool result:"
	geminiImages   = "Tool result image:"
	geminiLeadIn   = "[Earlier conversation not included]"
	geminiSkipSign = "skip_thought_signature_validator"
	cleared        = "[Old tool result content cleared]"
)

// Item is one thing that crosses, before any wire shapes it.
type Item struct {
	Kind     string // "text", "image", "reasoning", "call"
	Text     string
	Image    pi.ImageContent
	Thinking pi.ThinkingContent
	Call     pi.ToolCall
	SigOK    bool // call: its thoughtSignature is valid for the target
}

// Answer is the result that answers one call.
type Answer struct {
	CallID, Name string
	IsError      bool
	Items        []Item // text and image items
}

// Turn is a user turn, or an assistant round followed by its answers.
type Turn struct {
	Role    string // "user" or "assistant"
	Items   []Item
	Answers []Answer
}

// ErrNothingToSend: nothing of the transcript crosses to the wire.
var ErrNothingToSend = errors.New("model/replay: nothing to send")

// layouts holds the body layout of each wire of the registry (impl/pi).
var layouts = map[string]func(turns []Turn, t Target, p *Principal) pi.JSONValue{
	pi.WireAnthropic:       anthropic,
	pi.WireOpenAIChat:      chat,
	pi.WireOpenAIResponses: responses,
	pi.WireGemini:          gemini,
}

// Project returns the body for t; ErrNothingToSend when nothing crosses,
// and an error for a wire it has no layout for.
func Project(msgs []pi.Appender, t Target, p *Principal) ([]byte, error) {
	layout, ok := layouts[t.Wire]
	if !ok {
		return nil, fmt.Errorf("model/replay: unknown wire %q (want one of %s)", t.Wire, strings.Join(pi.WireShorts(), ", "))
	}
	turns := Turns(msgs, t)
	if len(turns) == 0 {
		return nil, ErrNothingToSend
	}
	return layout(turns, t, p).AppendJSON(nil), nil
}

func crosses(m *pi.AssistantMessage) bool {
	return m.StopReason == pi.StopStop || m.StopReason == pi.StopLength || m.StopReason == pi.StopToolUse
}

// firstCall finds the first call with id in a response that crosses.
func firstCall(msgs []pi.Appender, id string) (msg, block int) {
	if id == "" {
		return -1, -1
	}
	for i, m := range msgs {
		a, isA := m.(*pi.AssistantMessage)
		if !isA || !crosses(a) {
			continue
		}
		for j, c := range a.Content {
			if tc, isCall := c.(pi.ToolCall); isCall && tc.ID == id {
				return i, j
			}
		}
	}
	return -1, -1
}

// firstResult finds the first stored result for id.
func firstResult(msgs []pi.Appender, id string) int {
	for i, m := range msgs {
		if r, isR := m.(*pi.ToolResultMessage); isR && r.ToolCallID == id {
			return i
		}
	}
	return -1
}

// api is the pi-ai api name of a wire ("" for an unknown one).
func api(wire string) string {
	w, _ := pi.WireByName(wire)
	return w.API
}

func seen(t Target, mime string) bool {
	if !t.Vision {
		return false
	}
	if t.Wire == "anthropic" {
		return mime == "image/jpeg" || mime == "image/png" || mime == "image/gif" || mime == "image/webp"
	}
	return strings.HasPrefix(mime, "image/")
}

func imageItem(img pi.ImageContent, t Target) Item {
	if seen(t, img.MimeType) {
		return Item{Kind: "image", Image: img}
	}
	return Item{Kind: "text", Text: "[Image: " + img.MimeType + " — not visible to this model]"}
}

func contentItems(blocks []pi.Content, t Target) []Item {
	var out []Item
	for _, c := range blocks {
		if tx, isText := c.(pi.TextContent); isText && tx.Text != "" {
			out = append(out, Item{Kind: "text", Text: tx.Text})
		}
		if img, isImg := c.(pi.ImageContent); isImg {
			out = append(out, imageItem(img, t))
		}
	}
	return out
}

func b64(s string) bool {
	_, err := base64.StdEncoding.DecodeString(s)
	return s != "" && err == nil
}

// reasoningOK: a signed block of the same provider, api and model, in the
// form the wire takes back.
func reasoningOK(a *pi.AssistantMessage, th pi.ThinkingContent, t Target) bool {
	if a.Provider != t.Provider || a.Model != t.Model || a.API != api(t.Wire) {
		return false
	}
	if th.ThinkingSignature == nil || *th.ThinkingSignature == "" {
		return false
	}
	switch t.Wire {
	case "anthropic":
		return true
	case "gemini":
		return b64(*th.ThinkingSignature)
	case "openai-responses":
		_, ok := reasoningItem(*th.ThinkingSignature)
		return ok
	}
	return false
}

func reasoningItem(sig string) (pi.JSONValue, bool) {
	v, err := pi.ParseJSON(sig)
	if err != nil || v.Kind() != pi.Object {
		return v, false
	}
	typ, _ := v.ObjectValue().Get("type")
	sum, _ := v.ObjectValue().Get("summary")
	return v, typ.Str() == "reasoning" && typ.Kind() == pi.String && sum.Kind() == pi.Array
}

// Turns is the wire-independent reading of the record.
func Turns(msgs []pi.Appender, t Target) []Turn {
	var turns []Turn
	for i, m := range msgs {
		switch x := m.(type) {
		case *pi.UserMessage:
			var items []Item
			if x.Blocks == nil {
				if x.Text != "" {
					items = []Item{{Kind: "text", Text: x.Text}}
				}
			} else {
				items = contentItems(x.Blocks, t)
			}
			if len(items) > 0 {
				turns = append(turns, Turn{Role: "user", Items: items})
			}
		case *pi.AssistantMessage:
			if !crosses(x) {
				continue
			}
			turn := Turn{Role: "assistant"}
			speaks := false
			for j, c := range x.Content {
				switch b := c.(type) {
				case pi.TextContent:
					if b.Text != "" {
						turn.Items = append(turn.Items, Item{Kind: "text", Text: b.Text})
						speaks = true
					}
				case pi.ThinkingContent:
					if reasoningOK(x, b, t) {
						turn.Items = append(turn.Items, Item{Kind: "reasoning", Thinking: b})
					}
				case pi.ToolCall:
					if fi, fj := firstCall(msgs, b.ID); fi != i || fj != j {
						continue // an empty or reused id: never on the wire
					}
					speaks = true
					sigOK := t.Wire == "gemini" && x.Provider == t.Provider && x.Model == t.Model && x.API == api(t.Wire) &&
						b.ThoughtSignature != nil && b64(*b.ThoughtSignature)
					turn.Items = append(turn.Items, Item{Kind: "call", Call: b, SigOK: sigOK})
					ans := Answer{CallID: b.ID, Name: b.Name, IsError: true, Items: []Item{{Kind: "text", Text: unfinished}}}
					if k := firstResult(msgs, b.ID); k >= 0 {
						r := msgs[k].(*pi.ToolResultMessage)
						ans.IsError = r.IsError
						ans.Items = contentItems(r.Content, t)
						if len(ans.Items) == 0 {
							ans.Items = []Item{{Kind: "text", Text: noOutput}}
						}
					}
					turn.Answers = append(turn.Answers, ans)
				}
			}
			if speaks {
				turns = append(turns, turn)
			}
		case *pi.ToolResultMessage:
			ci, _ := firstCall(msgs, x.ToolCallID)
			if ci >= 0 && firstResult(msgs, x.ToolCallID) == i {
				continue // it crosses beside its call
			}
			var texts []string
			var images []Item
			for _, c := range x.Content {
				if tx, isText := c.(pi.TextContent); isText && tx.Text != "" {
					texts = append(texts, tx.Text)
				}
				if img, isImg := c.(pi.ImageContent); isImg {
					images = append(images, imageItem(img, t))
				}
			}
			label := "Result"
			if x.IsError {
				label = "Error"
			}
			prose := label + " (" + x.ToolName + "): " + strings.Join(texts, "\n")
			turns = append(turns, Turn{Role: "user", Items: append([]Item{{Kind: "text", Text: prose}}, images...)})
		}
	}
	return turns
}

// Microcompact clears all but the keep most recent compactable results.
func Microcompact(msgs []pi.Appender, keep int, tools []string) []pi.Appender {
	var ids []string
	for _, m := range msgs {
		if a, isA := m.(*pi.AssistantMessage); isA {
			for _, c := range a.Content {
				if tc, isCall := c.(pi.ToolCall); isCall && slices.Contains(tools, tc.Name) && !slices.Contains(ids, tc.ID) {
					ids = append(ids, tc.ID)
				}
			}
		}
	}
	out := append([]pi.Appender(nil), msgs...)
	if len(ids) <= keep {
		return out
	}
	old := ids[:len(ids)-keep]
	for i, m := range out {
		if r, isR := m.(*pi.ToolResultMessage); isR && slices.Contains(old, r.ToolCallID) {
			c := *r
			c.Content = []pi.Content{pi.TextContent{Text: cleared}}
			out[i] = &c
		}
	}
	return out
}
