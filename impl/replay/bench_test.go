package replay

import (
	"fmt"
	"testing"

	"github.com/frameproof/frameproof/impl/pi"
)

// benchTranscript has n messages in rounds of user, assistant with two
// calls (one answered, one left dangling by a crash every few rounds), and
// results, with an occasional orphan result.
func benchTranscript(n int) []pi.Appender {
	msgs := make([]pi.Appender, 0, n)
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

// BenchmarkProject reports ns per stored message; a flat column across
// sizes is the linear-time claim.
func BenchmarkProject(b *testing.B) {
	for _, n := range []int{100, 10_000, 100_000} {
		msgs := benchTranscript(n)
		for _, w := range Wires {
			b.Run(fmt.Sprintf("%s/n=%d", w, n), func(b *testing.B) {
				tg := Target{Wire: w, Provider: "p", Model: "m"} // the transcript's own model
				b.ReportAllocs()
				var size int
				for b.Loop() {
					body, err := Project(msgs, tg, Options{})
					if err != nil {
						b.Fatal(err)
					}
					size = len(body)
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/msg")
				b.ReportMetric(float64(size), "body-bytes")
			})
		}
	}
}

func BenchmarkMicrocompact(b *testing.B) {
	for _, n := range []int{100, 10_000, 100_000} {
		msgs := benchTranscript(n)
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, _, err := Microcompact(msgs, DefaultMicrocompact()); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/msg")
		})
	}
}
