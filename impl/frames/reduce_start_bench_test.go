package frames

import (
	"testing"

	"github.com/frameproof/frameproof/impl/pi"
)

// rawStartFrames are a fresh message's start frame as the benchmarks'
// streams write it (zero usage, one-letter names) and as a provider's
// stream does (real names, usage with decimals, a response id, a
// timestamp, diagnostics).
func rawStartFrames(tb testing.TB) []struct {
	name  string
	frame []byte
} {
	small, _, err := NewEncoder().AppendFrame(nil, &pi.Event{Type: pi.EventStart, Partial: &pi.AssistantMessage{
		Content: []pi.Content{pi.TextContent{}}, API: "a", Provider: "p", Model: "m", StopReason: pi.StopPending}})
	if err != nil {
		tb.Fatal(err)
	}
	id := "msg_01XFDUDYJgAACzvnptvVoYEL"
	diag := pi.NewObject()
	diag.Set("requestId", pi.StringValue("req_011CZ3kq7bN5"))
	diag.Set("retries", pi.NumberValue(1))
	diag.Set("latencyMs", pi.NumberValue(412.5))
	provider, _, err := NewEncoder().AppendFrame(nil, &pi.Event{Type: pi.EventStart, Partial: &pi.AssistantMessage{
		Content: []pi.Content{pi.TextContent{}}, API: "anthropic-messages", Provider: "anthropic",
		Model: "claude-sonnet-4-5-20250929", ResponseID: &id, Diagnostics: pi.ObjectValue(diag),
		Usage: pi.Usage{Input: 1234, Output: 56, CacheRead: 20480, CacheWrite: 512, TotalTokens: 22282,
			Cost: pi.Cost{Input: 0.003702, Output: 0.00084, CacheRead: 0.006144, CacheWrite: 0.00192, Total: 0.012606}},
		StopReason: pi.StopPending, Timestamp: 1767225600000}})
	if err != nil {
		tb.Fatal(err)
	}
	return []struct {
		name  string
		frame []byte
	}{{"small", small}, {"real", provider}}
}

func BenchmarkRawStart(b *testing.B) {
	for _, f := range rawStartFrames(b) {
		if _, _, ok := rawStart(f.frame); !ok {
			b.Fatalf("rawStart refuses %s", f.frame)
		}
		b.Run(f.name, func(b *testing.B) {
			b.SetBytes(int64(len(f.frame)))
			for i := 0; i < b.N; i++ {
				rawStart(f.frame)
			}
		})
	}
}
