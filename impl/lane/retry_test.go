package lane

import (
	"math"
	"testing"

	"github.com/frameproof/frameproof/impl/store"
	"github.com/stretchr/testify/require"
)

// retry.ts: delay = base·2^max(0, attempt−1), notBefore = now + delay, each
// MAX_SAFE_INTEGER unless it is a safe integer (Number.isSafeInteger).
func TestRetryDelayFollowsRetryTS(t *testing.T) {
	const maxSafe = store.MaxSafeInteger
	for _, c := range []struct {
		base    float64
		attempt int
		now     float64
		delay   float64
		notBef  float64
	}{
		{1000, 0, 5, 1000, 1005},
		{1000, 1, 5, 1000, 1005},
		{1000, 3, 5, 4000, 4005},
		{0, 7, 5, 0, 5},
		{1.5, 1, 5, maxSafe, maxSafe},     // not an integer
		{1000, 60, 0, maxSafe, maxSafe},   // beyond 2^53
		{maxSafe, 1, 1, maxSafe, maxSafe}, // the sum overflows
		{math.NaN(), 1, 0, maxSafe, maxSafe},
		{math.Inf(1), 1, 0, maxSafe, maxSafe},
	} {
		require.Equal(t, c.delay, RetryDelay(c.base, c.attempt), "delay(%v, %d)", c.base, c.attempt)
		require.Equal(t, c.notBef, RetryNotBefore(c.base, c.attempt, c.now), "notBefore(%v, %d, %v)", c.base, c.attempt, c.now)
	}
}
