package lanesim

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/frameproof/frameproof/impl/pi"
	"github.com/frameproof/frameproof/sim/choice"
)

// providerFeatures names the block features a generated stream carries,
// read off its events as a consumer would see them.
func providerFeatures(p respPlan) map[string]bool {
	got := map[string]bool{}
	acc := &pi.AssistantMessage{Content: []pi.Content{}}
	for _, b := range p.builders {
		ev := b(acc)
		switch ev.Type {
		case pi.EventTextDelta, pi.EventThinkingDelta:
			if strings.Contains(ev.Delta, "\xed") {
				got["lone surrogate delta"] = true
			}
		case pi.EventToolCallDelta:
			got["tool call delta"] = true
		case pi.EventToolCallStart:
			if acc.Content[ev.ContentIndex.N].(pi.ToolCall).Arguments.String() != "{}" {
				got["tool call complete at start"] = true
			} else {
				got["tool call streamed from {}"] = true
			}
		case pi.EventToolCallEnd:
			got["namespace"] = got["namespace"] || ev.ToolCall.Namespace != nil
			got["thoughtSignature"] = got["thoughtSignature"] || ev.ToolCall.ThoughtSignature != nil
		case pi.EventTextEnd:
			got["textSignature"] = got["textSignature"] || acc.Content[ev.ContentIndex.N].(pi.TextContent).TextSignature != nil
		case pi.EventThinkingEnd:
			th := acc.Content[ev.ContentIndex.N].(pi.ThinkingContent)
			got["thinkingSignature"] = got["thinkingSignature"] || th.ThinkingSignature != nil
			got["redacted thinking"] = got["redacted thinking"] || th.Redacted != nil && *th.Redacted
		}
		if ev.Type != pi.EventDone && ev.Type != pi.EventError && acc.Usage.Output > 0 {
			got["usage update mid-stream"] = true
		}
	}
	return got
}

// The simulated provider draws every block feature pi-ai's providers emit
// (types.d.ts TextContent, ThinkingContent, ToolCall; issue 13): over a few
// dozen seeds of the default generator options, each one occurs.
func TestProviderEmitsEveryFeature(t *testing.T) {
	want := []string{"lone surrogate delta", "tool call complete at start", "tool call streamed from {}", "tool call delta",
		"namespace", "thoughtSignature", "usage update mid-stream", "textSignature", "thinkingSignature", "redacted thinking"}
	seen := map[string]int{}
	g := base("features", "").gen
	for seed := uint64(0); seed < 60; seed++ {
		for f, ok := range providerFeatures(genPlan(choice.NewSeeded(seed), g)) {
			if ok {
				seen[f]++
			}
		}
	}
	t.Logf("streams with each feature, of 60: %v", seen)
	for _, f := range want {
		require.Positive(t, seen[f], "no generated stream in 60 seeds had %s", f)
	}
}
