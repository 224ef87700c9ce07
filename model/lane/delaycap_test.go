package lane

import (
	"math"
	"testing"
)

// TestDefaultMaxAgentDelayMs: a run whose stored policy names no cap is
// capped by Config.DefaultMaxAgentDelayMs — nil is pi-ai's retryDelayMs
// default (60000 ms, pi-agent-core 0.87.1 on); +Inf is pi-agent-core
// 0.85.1's runtime/drive/retry.js retryDelay / retryNotBefore, which have
// no cap: baseDelayMs·2^max(0, attempt−1), bounded only by
// Number.MAX_SAFE_INTEGER. A cap the run stores wins over the option.
func TestDefaultMaxAgentDelayMs(t *testing.T) {
	inf, own := math.Inf(1), 5000.0
	now := func() float64 { return 1_000_000 }
	for _, c := range []struct {
		name       string
		option     *float64
		run        Run
		attempt    int
		wantDelay  float64
		wantBefore float64
	}{
		{"pi-ai default", nil, Run{BaseDelayMs: 40000}, 2, 60000, 1_060_000},
		{"pi 0.85.1 uncapped", &inf, Run{BaseDelayMs: 40000}, 2, 80000, 1_080_000},
		{"pi 0.85.1 safe-integer bound", &inf, Run{BaseDelayMs: 40000}, 2000, maxSafeInteger, maxSafeInteger},
		{"stored cap wins", &inf, Run{BaseDelayMs: 40000, MaxAgentDelayMs: &own}, 2, 5000, 1_005_000},
	} {
		m := New(Config{Lane: "main", Now: now, DefaultMaxAgentDelayMs: c.option})
		limit := m.delayCap(c.run)
		if d := retryDelay(c.run.BaseDelayMs, limit, c.attempt); d != c.wantDelay {
			t.Errorf("%s: retryDelay = %v, want %v", c.name, d, c.wantDelay)
		}
		if nb := notBefore(now(), c.run.BaseDelayMs, limit, c.attempt); nb != c.wantBefore {
			t.Errorf("%s: notBefore = %v, want %v", c.name, nb, c.wantBefore)
		}
	}
}
