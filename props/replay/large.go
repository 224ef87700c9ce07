package replay

import (
	"fmt"

	"github.com/frameproof/frameproof/impl/pi"
)

// LargeTranscript is a deterministic transcript of exactly n messages for
// benchmarks and size tests: rounds of a user message, an assistant round
// with reasoning, text and two calls (one answered, the other left dangling
// by a crash every third round), the results, and an occasional orphan
// result. Its assistant messages come from anthropic-messages.
func LargeTranscript(n int) []pi.Appender {
	msgs := make([]pi.Appender, 0, n+4)
	for r := 0; len(msgs) < n; r++ {
		a, b := fmt.Sprintf("call_%d_a", r), fmt.Sprintf("call_%d_b", r)
		args := pi.NewObject()
		args.Set("cmd", pi.StringValue("ls -la"))
		msgs = append(msgs,
			&pi.UserMessage{Text: "please look at the repository and tell me what changed"},
			&pi.AssistantMessage{API: "anthropic-messages", Provider: "p", Model: "m", StopReason: pi.StopToolUse, Content: []pi.Content{
				pi.ThinkingContent{Thinking: "let me check", ThinkingSignature: pi.Str("c2ln")},
				pi.TextContent{Text: "checking"},
				pi.ToolCall{ID: a, Name: "bash", Arguments: pi.ObjectValue(args)},
				pi.ToolCall{ID: b, Name: "read", Arguments: pi.ObjectValue(args)}}},
			&pi.ToolResultMessage{ToolCallID: a, ToolName: "bash", Content: []pi.Content{pi.TextContent{Text: "total 0\ndrwxr-xr-x a\n"}}})
		if r%3 != 0 {
			msgs = append(msgs, &pi.ToolResultMessage{ToolCallID: b, ToolName: "read", Content: []pi.Content{pi.TextContent{Text: "contents"}}})
		} else {
			msgs = append(msgs, &pi.ToolResultMessage{ToolCallID: "gone", ToolName: "grep", Content: []pi.Content{pi.TextContent{Text: "x"}}, IsError: true})
		}
	}
	return msgs[:n]
}
