package provider

import (
	"github.com/frameproof/frameproof/impl/pi"
	impl "github.com/frameproof/frameproof/impl/provider"
)

// Expected is what a correct adapter must end with for a scenario.
type Expected struct {
	// Terminal is "done" or "error"; Either allows both (a disconnect whose
	// cut may or may not have lost information the message needs).
	Terminal string
	Either   bool
	// Message is the final message a done event must carry (content, stop
	// reason, usage, response id) — the truth modulo what the wire carries.
	Message impl.Message
	// WildcardIDs marks tool calls whose id the wire did not carry.
	WildcardIDs map[int]bool
	// JSONSignatures: thinking signatures are JSON documents (Responses'
	// reasoning items) and compare structurally.
	JSONSignatures bool
}

// Expect derives the expected outcome of a scenario. Per wire, the truth is
// mapped to what pi-ai records (the wire cannot carry more):
//   - Anthropic: redacted thinking becomes thinking "[Reasoning redacted]"
//     with the payload as signature and redacted=true; no reasoning count.
//   - Chat Completions: no signatures (the thinking signature is the name of
//     the reasoning field, "reasoning_content"); no cache writes.
//   - Responses: tool ids are "call_id|item_id"; text signatures are
//     {"v":1,"id":item_id}; thinking signatures are the reasoning item JSON;
//     no cache writes.
//   - Gemini: tool ids are optional (a missing id is minted by the adapter
//     and not compared); no cache writes.
func Expect(sc Scenario) Expected {
	wire := impl.Wire(sc.Wire)
	tr, tp := sc.Truth, sc.Transport
	ex := Expected{Terminal: "done", WildcardIDs: map[int]bool{}, JSONSignatures: wire == impl.WireOpenAIResponses}
	switch tp.Failure {
	case FailErrorEvent, FailErrorStop, FailHTTP:
		ex.Terminal = "error"
	case FailDisconnect:
		ex.Terminal, ex.Either = "error", true
	}
	m := impl.Message{Role: "assistant", Content: []impl.Block{}, API: sc.Wire, Model: tr.Model, ResponseID: tr.ResponseID, StopReason: tr.StopReason()}
	u := tr.Usage
	m.Usage = impl.Usage{Input: u.Input, Output: u.Output, CacheRead: u.CacheRead, Reasoning: u.Reasoning}
	if wire == impl.WireAnthropic {
		m.Usage.CacheWrite, m.Usage.Reasoning = u.CacheWrite, 0
	}
	m.Usage.TotalTokens = m.Usage.Input + m.Usage.Output + m.Usage.CacheRead + m.Usage.CacheWrite
	for k, b := range tr.Blocks {
		var out impl.Block
		switch b.Kind {
		case KText:
			out = impl.Block{Type: "text", Text: b.Text}
			switch wire {
			case impl.WireGemini:
				out.TextSignature = b.Signature
			case impl.WireOpenAIResponses:
				out.TextSignature = jsonText(obj{{"v", 1}, {"id", responsesItemID(KText, k)}})
			}
		case KThinking:
			out = impl.Block{Type: "thinking", Thinking: b.Text, ThinkingSignature: b.Signature}
			switch wire {
			case impl.WireOpenAIChat:
				out.ThinkingSignature = "reasoning_content"
			case impl.WireOpenAIResponses:
				out.ThinkingSignature = jsonText(responsesReasoningItem(b, k))
			}
		case KRedacted:
			out = impl.Block{Type: "thinking", Thinking: "[Reasoning redacted]", ThinkingSignature: b.Signature, Redacted: true}
		case KToolCall:
			args, _ := pi.ParseJSON(b.ArgsJSON) // JSON.parse: JS property order, as the adapter sees it
			out = impl.Block{Type: "toolCall", ID: b.ToolID, Name: b.Name, Arguments: args}
			switch wire {
			case impl.WireOpenAIResponses:
				out.ID = b.ToolID + "|" + responsesItemID(KToolCall, k)
			case impl.WireGemini:
				out.ThoughtSignature = b.Signature
				if b.ToolID == "" {
					ex.WildcardIDs[len(m.Content)] = true
				}
			}
		}
		m.Content = append(m.Content, out)
	}
	ex.Message = m
	return ex
}
