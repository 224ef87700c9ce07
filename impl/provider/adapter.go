package provider

import (
	"encoding/json"
	"fmt"
	"io"
)

// Wire names a streaming API, using pi-ai's api identifiers.
type Wire string

// The four wires.
const (
	WireAnthropic       Wire = "anthropic-messages"
	WireOpenAIChat      Wire = "openai-completions"
	WireOpenAIResponses Wire = "openai-responses"
	WireGemini          Wire = "google-generative-ai"
)

// Wires lists every supported wire in a fixed order.
var Wires = []Wire{WireAnthropic, WireOpenAIChat, WireOpenAIResponses, WireGemini}

// ParseWire accepts a wire's api name or a short alias (anthropic, chat,
// responses, gemini).
func ParseWire(s string) (Wire, error) {
	switch s {
	case string(WireAnthropic), "anthropic":
		return WireAnthropic, nil
	case string(WireOpenAIChat), "chat", "openai-chat":
		return WireOpenAIChat, nil
	case string(WireOpenAIResponses), "responses":
		return WireOpenAIResponses, nil
	case string(WireGemini), "gemini", "google":
		return WireGemini, nil
	}
	return "", fmt.Errorf("provider: unknown wire %q (want anthropic-messages, openai-completions, openai-responses or google-generative-ai)", s)
}

// Meta is the request-side identity of the message being streamed.
type Meta struct {
	Provider string
	Model    string
}

// Options configure an adapter run.
type Options struct {
	// Bug seeds one known adapter defect (BugNone for the correct adapter).
	Bug Bug
}

// Stream runs the adapter for wire over the SSE bytes in r and calls emit for
// every event, ending with exactly one done or error event (unless a seeded
// bug says otherwise). Read errors and malformed input become an error event.
func Stream(wire Wire, r io.Reader, meta Meta, opts Options, emit func(Event)) {
	em := newEmitter(wire, meta, opts.Bug, emit)
	var run func(io.Reader, *emitter) error
	switch wire {
	case WireAnthropic:
		run = runAnthropic
	case WireOpenAIChat:
		run = runOpenAIChat
	case WireOpenAIResponses:
		run = runOpenAIResponses
	case WireGemini:
		run = runGemini
	default:
		em.start()
		em.fail(fmt.Errorf("provider: unknown wire %q", wire))
		return
	}
	em.start()
	if err := run(r, em); err != nil {
		em.fail(err)
		return
	}
	em.finish()
}

// HTTPFailure emits the single error event an adapter produces when the
// provider answers with a non-2xx status: pi-ai reports setup failures as an
// error event without a preceding start.
func HTTPFailure(wire Wire, meta Meta, status int, body []byte, emit func(Event)) {
	em := newEmitter(wire, meta, BugNone, emit)
	msg := fmt.Sprintf("%d %s", status, compactBody(body))
	em.fail(fmt.Errorf("%s", msg))
}

func compactBody(body []byte) string {
	var v any
	if json.Unmarshal(body, &v) == nil {
		if b, err := json.Marshal(v); err == nil {
			return string(b)
		}
	}
	return string(body)
}

// SSEs whose stream ended without its terminal marker.
type truncatedError struct{ what string }

func (e truncatedError) Error() string { return "provider: stream ended early: " + e.what }

// decodeData parses an SSE data payload into v with a clear error.
func decodeData(wire Wire, ev SSEEvent, v any) error {
	if err := json.Unmarshal([]byte(ev.Data), v); err != nil {
		return fmt.Errorf("provider: %s: bad event %q JSON: %w", wire, ev.Event, err)
	}
	return nil
}
