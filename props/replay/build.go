// Package replay ties impl/replay to model/replay and model/wire: builders
// and rapid generators for transcripts (importable by other tests and the
// simulator), the corpus vector runner, and the properties.
package replay

import "github.com/frameproof/frameproof/impl/pi"

// Default identity of built assistant messages.
const (
	DefaultAPI      = pi.APIAnthropicMessages
	DefaultProvider = "anthropic"
	DefaultModel    = "claude-test"
)

// User is a user message with string content.
func User(text string) *pi.UserMessage { return &pi.UserMessage{Text: text, Timestamp: 1} }

// UserBlocks is a user message with block content.
func UserBlocks(blocks ...pi.Content) *pi.UserMessage {
	if blocks == nil {
		blocks = []pi.Content{}
	}
	return &pi.UserMessage{Blocks: blocks, Timestamp: 1}
}

// Asst is a settled assistant message from the default model.
func Asst(blocks ...pi.Content) *pi.AssistantMessage {
	return AsstFrom(DefaultAPI, DefaultProvider, DefaultModel, pi.StopStop, blocks...)
}

// AsstStop is an assistant message from the default model with a stop reason.
func AsstStop(stop pi.StopReason, blocks ...pi.Content) *pi.AssistantMessage {
	return AsstFrom(DefaultAPI, DefaultProvider, DefaultModel, stop, blocks...)
}

// AsstFrom is an assistant message with an explicit identity.
func AsstFrom(api, provider, model string, stop pi.StopReason, blocks ...pi.Content) *pi.AssistantMessage {
	if blocks == nil {
		blocks = []pi.Content{}
	}
	return &pi.AssistantMessage{Content: blocks, API: api, Provider: provider, Model: model, StopReason: stop, Timestamp: 2}
}

// Text, Thinking, Call and Image are content blocks.
func Text(s string) pi.TextContent { return pi.TextContent{Text: s} }

// Thinking is a thinking block; sig "" means unsigned.
func Thinking(text, sig string) pi.ThinkingContent {
	th := pi.ThinkingContent{Thinking: text}
	if sig != "" {
		th.ThinkingSignature = pi.Str(sig)
	}
	return th
}

// Redacted is a redacted thinking block carrying its opaque payload.
func Redacted(data string) pi.ThinkingContent {
	return pi.ThinkingContent{Thinking: "", ThinkingSignature: pi.Str(data), Redacted: pi.BoolPtr(true)}
}

// Call is a tool call with object arguments given as key/value string pairs.
func Call(id, name string, kv ...string) pi.ToolCall {
	o := pi.NewObject()
	for i := 0; i+1 < len(kv); i += 2 {
		o.Set(kv[i], pi.StringValue(kv[i+1]))
	}
	return pi.ToolCall{ID: id, Name: name, Arguments: pi.ObjectValue(o)}
}

// Image is an image block.
func Image(mime, data string) pi.ImageContent { return pi.ImageContent{Data: data, MimeType: mime} }

// Result is a tool result with text output.
func Result(id, name, output string, isError bool) *pi.ToolResultMessage {
	return ResultBlocks(id, name, isError, Text(output))
}

// ResultBlocks is a tool result with explicit content.
func ResultBlocks(id, name string, isError bool, blocks ...pi.Content) *pi.ToolResultMessage {
	if blocks == nil {
		blocks = []pi.Content{}
	}
	return &pi.ToolResultMessage{ToolCallID: id, ToolName: name, Content: blocks, IsError: isError, Timestamp: 3}
}

// Record is a transcript.
func Record(msgs ...pi.Appender) []pi.Appender { return msgs }
