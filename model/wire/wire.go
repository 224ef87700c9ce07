// Package wire holds acceptance models for four provider request formats:
// OpenAI Chat Completions, OpenAI Responses, Anthropic Messages and Gemini
// generateContent. A validator rejects what the real API rejects for a
// broken history and answers with the real API's error text where a public
// record of that text exists (see replay-and-wire-facts.md §2). Rules that
// frameproof adds on top of the real APIs (every call answered exactly once,
// no duplicate ids) are marked Strict and use `wire: <wire>: ...` messages.
//
// The validators work on the decoded JSON body, not on frameproof types, so
// they judge any producer's output.
package wire

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/frameproof/frameproof/impl/pi"
)

// Wire names: the short names of the registry (impl/pi), shared spelling
// with impl/replay and the CLI.
const (
	Anthropic       = pi.WireAnthropic
	OpenAIChat      = pi.WireOpenAIChat
	OpenAIResponses = pi.WireOpenAIResponses
	Gemini          = pi.WireGemini
)

// Wires lists the wires of the registry (impl/pi).
var Wires = pi.WireShorts()

// validators holds one acceptance model per wire.
var validators = map[string]func(obj map[string]any, opts Options) error{
	Anthropic:       validateAnthropic,
	OpenAIChat:      validateChat,
	OpenAIResponses: validateResponses,
	Gemini:          validateGemini,
}

// Options carries the facts about the target that change what a wire accepts.
type Options struct {
	// Vision: the model accepts image input. Without it image parts are rejected.
	Vision bool
	// Model is the target model id; Gemini 3 models enforce thought signatures.
	Model string
	// SignatureValid, when set, decides whether a thinking signature was issued
	// for this model (the real API checks this cryptographically). When nil,
	// any non-empty signature is accepted.
	SignatureValid func(signature string) bool
}

// Error is one rejection. Message is the provider's error text (or a
// frameproof message for Strict rules); Rule names the rule for tests.
type Error struct {
	Wire    string
	Rule    string
	Strict  bool // a frameproof rule stricter than the real API
	Message string
}

func (e *Error) Error() string { return e.Message }

func reject(wire, rule, format string, args ...any) *Error {
	return &Error{Wire: wire, Rule: rule, Message: fmt.Sprintf(format, args...)}
}

func strict(wire, rule, format string, args ...any) *Error {
	return &Error{Wire: wire, Rule: rule, Strict: true,
		Message: "wire: " + wire + ": " + fmt.Sprintf(format, args...)}
}

// Validate decodes body and applies the named wire's acceptance rules.
func Validate(wire string, body []byte, opts Options) error {
	validate, ok := validators[wire]
	if !ok {
		return fmt.Errorf("wire: unknown wire %q (want one of %s)", wire, strings.Join(Wires, ", "))
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var root any
	if err := dec.Decode(&root); err != nil {
		return strict(wire, "json", "request body is not JSON: %v", err)
	}
	if dec.More() {
		return strict(wire, "json", "request body has trailing data after the JSON value")
	}
	obj, ok := root.(map[string]any)
	if !ok {
		return strict(wire, "json", "request body is not a JSON object")
	}
	return validate(obj, opts)
}

// --- small helpers over decoded JSON ---

func asObj(v any) (map[string]any, bool) { m, ok := v.(map[string]any); return m, ok }
func asArr(v any) ([]any, bool)          { a, ok := v.([]any); return a, ok }
func asStr(v any) (string, bool)         { s, ok := v.(string); return s, ok }

func str(m map[string]any, k string) string { s, _ := m[k].(string); return s }

// validJSONText reports whether s parses as one JSON value.
func validJSONText(s string) bool {
	dec := json.NewDecoder(strings.NewReader(s))
	var v any
	if err := dec.Decode(&v); err != nil {
		return false
	}
	_, err := dec.Token()
	return err != nil // io.EOF: nothing trails
}
