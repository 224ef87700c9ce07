// Package provider holds frameproof's reference adapters for four streaming
// wires — Anthropic Messages, OpenAI Chat Completions, OpenAI Responses and
// Gemini streamGenerateContent — turning a provider's SSE byte stream into
// pi-ai assistant-message events.
//
// Every adapter is a pure function over an io.Reader: no HTTP, no clock, no
// goroutines (the HTTP call lives in props/provider and cmd/frameproof). An
// adapter mutates one live accumulator Message, exactly as pi-ai's providers
// mutate their `output` object, and every non-terminal event carries a deep
// snapshot of that accumulator taken when the event was emitted.
//
// The adapters follow pi-ai 1.0.3's conventions where pi defines them
// (redacted thinking text, Chat Completions' reasoning field as the thinking
// signature, Responses' "call_id|item_id" tool ids, usage arithmetic), so a
// checker can hold them and pi-ai's own providers to the same expectations.
//
// StreamPi emits impl/pi Events (pi.Event with Partial *pi.AssistantMessage,
// the live accumulator's snapshot at emission); Stream emits this package's
// small Message/Block model, which the contract checker compares
// structurally. ToPi, EventFromPi and MessageFromPi convert without loss
// (see topi.go). DecodePiEvent reads an external adapter's event line.
//
// Like pi-ai, the live partial's tool arguments are parseStreamingJson of
// the argument JSON streamed so far (frames.ParseStreamingJSON), held as
// pi.JSONValue in JS property order. Wire strings are decoded as JS decodes
// them (jsString): a delta that splits an astral character leaves a lone
// surrogate (WTF-8, see impl/pi) that the next delta re-joins (pi.Concat).
//
// Seeded bugs (WithBug, a wrapper of the output) give known adapter defects
// so tests can prove the contract checker catches each one.
package provider
