// Package provider fuzzes streaming provider adapters: it draws a response's
// truth, renders it as each wire streams it (Anthropic Messages, OpenAI Chat
// Completions, OpenAI Responses, Gemini streamGenerateContent), injects
// transport faults (chunk boundaries anywhere, keep-alives, interleaved tool
// calls, complete tool arguments at block start, disconnects, error events,
// HTTP error statuses), runs a subject adapter over the bytes — the Go
// reference adapters in impl/provider, or an external adapter over the JSONL
// stdio protocol (see PROTOCOL.md) such as pi-ai's own providers — and checks
// every event against the pi-ai event contract, each rule with its own named
// verdict, plus the final message against the truth modulo what the wire
// cannot carry.
package provider
