// Package replay projects a stored transcript (pi-ai messages) onto the
// narrowest valid request body for one provider wire: OpenAI Chat
// Completions, OpenAI Responses, Anthropic Messages or Gemini
// generateContent.
//
// The projection works in three steps: Microcompact (optional) rewrites the
// typed record, plan binds every call to at most one result and decides what
// crosses at all, and one encoder per wire lays the plan out in the order the
// wire requires. The record is never modified.
package replay

import (
	"fmt"
	"strings"

	"github.com/frameproof/frameproof/impl/pi"
)

// Wire names: the short names of the registry (impl/pi), as model/wire and
// the CLI spell them.
const (
	WireAnthropic       = pi.WireAnthropic
	WireOpenAIChat      = pi.WireOpenAIChat
	WireOpenAIResponses = pi.WireOpenAIResponses
	WireGemini          = pi.WireGemini
)

// Wires lists the wires of the registry (impl/pi).
var Wires = pi.WireShorts()

// Exact strings the projection writes (replay-and-wire-facts.md §1.2).
const (
	// UnfinishedCall answers a call whose result never arrived.
	UnfinishedCall = "This call did not complete — the turn ended before its result arrived."
	// ClearedResult replaces old compactable tool output (microcompact).
	ClearedResult = "[Old tool result content cleared]"
	// NoOutput stands for a tool result with no content at all, so no wire
	// sees an empty result (Anthropic rejects empty error results).
	NoOutput = "(no output)"
	// ToolImageNote is the tool-message text when a result is only images
	// that ride in a following user message (OpenAI Chat).
	ToolImageNote = "(see attached image)"
	// ToolImagesLeadIn introduces tool-result images moved to a user message.
	ToolImagesLeadIn = "Attached image(s) from tool result:"
	// GeminiToolImagesLeadIn introduces tool-result images for Gemini models
	// that cannot nest them in functionResponse.parts.
	GeminiToolImagesLeadIn = "Tool result image:"
	// GeminiLeadIn opens a Gemini history whose first turn is a function
	// call: Gemini requires a user turn before any function call turn.
	GeminiLeadIn = "[Earlier conversation not included]"
	// GeminiSkipSignature is the documented sentinel for function calls that
	// carry no thought signature of the target model (Gemini 3).
	GeminiSkipSignature = "skip_thought_signature_validator"
)

// ImageMarker is the text an image becomes when the model cannot see it.
func ImageMarker(mime string) string {
	return "[Image: " + mime + " — not visible to this model]"
}

// ResultProse is how a result whose call is gone crosses.
func ResultProse(name, output string, isError bool) string {
	if isError {
		return "Error (" + name + "): " + output
	}
	return "Result (" + name + "): " + output
}

// Target identifies where the request goes.
type Target struct {
	Wire     string
	Provider string // pi provider id, e.g. "anthropic"
	Model    string // model id
	Vision   bool   // the model accepts image input
}

// api is the pi-ai api name whose messages carry signatures valid on wire.
func (t Target) api() string {
	w, _ := pi.WireByName(t.Wire)
	return w.API
}

// validate accepts the short name of a wire that has an encoder.
func (t Target) validate() error {
	w, err := pi.WireByName(t.Wire)
	if err != nil || w.Short != t.Wire || encoders[t.Wire] == nil {
		return fmt.Errorf("replay: unknown wire %q: want one of %s", t.Wire, strings.Join(Wires, ", "))
	}
	return nil
}

func (t Target) gemini3() bool { return strings.HasPrefix(t.Model, "gemini-3") }

// Options adjusts one projection.
type Options struct {
	// Principal is the runtime principal of this request. It is rendered
	// into the system slot of the wire and never read from the record.
	Principal *Principal
	// Microcompact, when set, is applied to the typed record first.
	Microcompact *MicrocompactOptions
	// MaxTokens for Anthropic's required max_tokens; 0 means 4096.
	MaxTokens int
}
