package provider

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/frameproof/frameproof/impl/pi"
)

// Wire names a streaming API, using pi-ai's api identifiers.
type Wire string

// The wires of the registry (impl/pi), by api name.
const (
	WireAnthropic       Wire = pi.APIAnthropicMessages
	WireOpenAIChat      Wire = pi.APIOpenAICompletions
	WireOpenAIResponses Wire = pi.APIOpenAIResponses
	WireGemini          Wire = pi.APIGoogleGenerativeAI
)

// Wires lists every wire of the registry (impl/pi) in its order.
var Wires = registryWires()

func registryWires() []Wire {
	var out []Wire
	for _, api := range pi.WireAPIs() {
		out = append(out, Wire(api))
	}
	return out
}

// adapters holds one SSE adapter per wire.
var adapters = map[Wire]func(io.Reader, *emitter) error{
	WireAnthropic:       runAnthropic,
	WireOpenAIChat:      runOpenAIChat,
	WireOpenAIResponses: runOpenAIResponses,
	WireGemini:          runGemini,
}

// ParseWire accepts any name of a wire in the registry: its api name, its
// short name or an alias (anthropic, chat, responses, gemini, ...).
func ParseWire(s string) (Wire, error) {
	w, err := pi.WireByName(s)
	if err != nil {
		return "", fmt.Errorf("provider: %w", err)
	}
	return Wire(w.API), nil
}

// Meta is the request-side identity of the message being streamed.
type Meta struct {
	Provider string
	Model    string
}

// Options configure an adapter run. There is none yet; seeded defects wrap
// the output instead (WithBug).
type Options struct{}

// Stream runs the adapter for wire over the SSE bytes in r and calls emit for
// every event, ending with exactly one done or error event (unless a seeded
// bug says otherwise). Read errors and malformed input become an error event.
func Stream(wire Wire, r io.Reader, meta Meta, opts Options, emit func(Event)) {
	em := newEmitter(wire, meta, emit)
	run, ok := adapters[wire]
	if !ok {
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
	em := newEmitter(wire, meta, emit)
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
