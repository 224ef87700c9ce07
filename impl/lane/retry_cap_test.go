package lane

import (
	"math"
	"testing"

	"github.com/frameproof/frameproof/impl/pi"
	"github.com/stretchr/testify/require"
)

// The cap on a retry delay whose stored policy names none differs between
// pi's releases: pi-agent-core 0.85.1's runtime/drive/retry.js retryDelay
// (retryNotBefore's) has no cap, 0.87.1's retryNotBefore calls pi-ai's
// retryDelayMs, which caps at policy.maxAgentDelayMs ?? 60000.
// Config.DefaultMaxAgentDelayMs chooses: nil is pi-ai's 60000, +Inf is
// 0.85.1. A policy that names a cap keeps it either way.
func TestRetryDelayCapWhenPolicyNamesNone(t *testing.T) {
	inf, named := math.Inf(1), 70_000.0
	notBefore := func(policyCap, defaultCap *float64) float64 {
		cur := &OpState{At: LeafAssistantEffectPending, Attempt: 2, ResponseEntryID: "r", UsageID: "u",
			Gen: &GenerationContext{StepID: "s", TriggerEntryID: "t", RetryPolicy: RetryPolicy{MaxAttempts: 4, BaseDelayMs: 45_000, MaxAgentDelayMs: policyCap}}}
		resp := &pi.AssistantMessage{StopReason: pi.StopError, ErrorMessage: strp("503 service unavailable: overloaded")}
		d, err := classify(classifyInput{current: cur, response: resp, now: 1_000, delayCap: defaultCap, newID: func() string { return "id" }})
		require.NoError(t, err)
		require.NotNil(t, d.Next)
		require.Equal(t, LeafAssistantRetryWait, d.Next.At)
		return d.Next.NotBefore
	}
	require.Equal(t, 61_000.0, notBefore(nil, nil), "pi-ai's default cap (0.87.1 and later)")
	require.Equal(t, 91_000.0, notBefore(nil, &inf), "0.85.1: 45 s · 2, uncapped")
	require.Equal(t, 71_000.0, notBefore(&named, &inf), "a named cap is the policy's")
}

// pi 0.85.1's runtime/drive/response.js publishResponse: retry_scheduled's
// delayMs is retryDelay of the settled attempt, the very delay
// retryNotBefore added to the settlement's time. Under the release's
// default cap (Config.DefaultMaxAgentDelayMs) both are uncapped or both
// capped; the event never shows pi-ai's 60 s while the wait is longer.
func TestRetryScheduledDelayIsTheWaitsDelay(t *testing.T) {
	inf := math.Inf(1)
	for _, defaultCap := range []*float64{nil, &inf} {
		cur := &OpState{At: LeafAssistantEffectPending, Attempt: 2, ResponseEntryID: "r", UsageID: "u",
			Gen: &GenerationContext{StepID: "s", TriggerEntryID: "t", RetryPolicy: RetryPolicy{MaxAttempts: 4, BaseDelayMs: 45_000}}}
		resp := &pi.AssistantMessage{StopReason: pi.StopError, ErrorMessage: strp("503 service unavailable: overloaded")}
		d, err := classify(classifyInput{current: cur, response: resp, now: 1_000, delayCap: defaultCap, newID: func() string { return "id" }})
		require.NoError(t, err)
		require.NotNil(t, d.Next)
		var scheduled []Event
		for _, ev := range settlementEvents("o", cur, d, pi.JSONValue{}, false, 1_000, defaultCap) {
			if ev.Type == EvRetryScheduled {
				scheduled = append(scheduled, ev)
			}
		}
		require.Len(t, scheduled, 1)
		require.Equal(t, d.Next.NotBefore-1_000, scheduled[0].DelayMs, "delayMs is the wait's delay (default cap %v)", defaultCap)
	}
}
