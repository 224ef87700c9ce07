package lane

import (
	"strings"

	"github.com/frameproof/frameproof/impl/pi"
	"math"
	"testing"

	"github.com/frameproof/frameproof/impl/store"
	"github.com/stretchr/testify/require"
)

// pi-ai 1.0.3 dist/utils/retry.js retryDelayMs (values printed by the peer) and
// the harness's runtime/drive/retry.ts retryNotBefore built on it.
func TestRetryDelayFollowsPiAIRetryDelayMs(t *testing.T) {
	const maxSafe = store.MaxSafeInteger
	f := func(x float64) *float64 { return &x }
	for _, c := range []struct {
		base    float64
		attempt int
		limit   *float64
		now     float64
		delay   float64
		notBef  float64
	}{
		{1000, 0, nil, 5, 1000, 1005},
		{1000, 1, nil, 5, 1000, 1005},
		{1000, 3, nil, 5, 4000, 4005},
		{1000, 7, nil, 5, 60000, 60005},  // the default cap, 60 s
		{1000, 35, nil, 5, 60000, 60005}, // the old form waited 2^34 s
		{0, 7, nil, 5, 0, 5},
		{50, 2, nil, 0, 100, 100},
		{1.5, 1, nil, 5, 60000, 60005},   // not an integer: MAX_SAFE_INTEGER, then the cap
		{1000, 60, nil, 0, 60000, 60000}, // beyond 2^53
		{math.NaN(), 1, nil, 0, 60000, 60000},
		{math.Inf(1), 1, nil, 0, 60000, 60000},
		{1000, 3, f(2500), 5, 2500, 2505},
		{1000, 30, f(1e12), 0, 536870912000, 536870912000},
		{1000, 3, f(0), 5, 0, 5},
		{1000, 3, f(math.Inf(1)), maxSafe, 4000, maxSafe}, // the sum is not safe
	} {
		p := RetryPolicy{BaseDelayMs: c.base, MaxAgentDelayMs: c.limit}
		require.Equal(t, c.delay, RetryDelay(p, c.attempt), "delay(%v, %d, %v)", c.base, c.attempt, c.limit)
		require.Equal(t, c.notBef, RetryNotBefore(p, c.attempt, c.now), "notBefore(%v, %d, %v)", c.base, c.attempt, c.now)
	}
	nan := math.NaN() // Math.min(delay, NaN) is NaN, and now + NaN is not safe
	require.True(t, math.IsNaN(RetryDelay(RetryPolicy{BaseDelayMs: 1000, MaxAgentDelayMs: &nan}, 3)))
	require.Equal(t, float64(maxSafe), RetryNotBefore(RetryPolicy{BaseDelayMs: 1000, MaxAgentDelayMs: &nan}, 3, 5))
}

// The retry policy keeps pi-ai's RetryPolicy shape (utils/retry.d.ts) in the generation context:
// maxAgentDelayMs is written only when set (JSON.stringify drops undefined).
func TestRetryPolicyStateRoundTrip(t *testing.T) {
	limit := 2500.0
	for _, p := range []RetryPolicy{{MaxAttempts: 3, BaseDelayMs: 1000}, {MaxAttempts: 3, BaseDelayMs: 1000, MaxAgentDelayMs: &limit}} {
		st := &OpState{At: LeafAssistantReady, NextAttempt: 1, Gen: &GenerationContext{StepID: "s", TriggerEntryID: "u",
			Configuration: Configuration{Model: ModelRef{Provider: "p", ModelID: "m"}, ActiveToolNames: []string{}}, RetryPolicy: p}}
		raw, err := pi.Marshal(st.Value())
		require.NoError(t, err)
		require.Equal(t, p.MaxAgentDelayMs != nil, strings.Contains(string(raw), `"maxAgentDelayMs":2500}`), string(raw))
		back, err := DecodeState(raw)
		require.NoError(t, err)
		require.Equal(t, p, back.Gen.RetryPolicy)
	}
}
