package lane

import (
	"testing"

	"github.com/frameproof/frameproof/impl/pi"
)

// pi-ai 1.0.3 utils/retry.js isRetryableAssistantError and
// utils/overflow.js isContextOverflow test /…/i regexps without the u
// flag: "ſervice unavailable" is not retryable there (Canonicalize never
// maps a non-ASCII unit onto ASCII), CR ends a `.`, NBSP is `\s`.
func TestTablesReadTextAsJavaScript(t *testing.T) {
	e := func(s string) *pi.AssistantMessage {
		return &pi.AssistantMessage{StopReason: pi.StopError, ErrorMessage: pi.Str(s), Provider: "cerebras"}
	}
	checks := []struct {
		text            string
		retry, overflow bool
	}{
		{"\u017fervice unavailable", false, false},
		{"Service unavailable", true, false},
		{"rate\u212aimit", false, false},
		{"rate\rlimit", false, false},
		{"rate\U0001F600limit", false, false},
		{"exceeds model's maximum context length\u00a0(5)", false, true},
		{"input token count\u2029exceeds the maximum", false, false},
		{"400\ufeff(no body)", false, true},
	}
	for _, c := range checks {
		if got := RetryableError(e(c.text)); got != c.retry {
			t.Errorf("RetryableError(%q) = %t, want %t", c.text, got, c.retry)
		}
		if got := ContextOverflow(e(c.text), 0); got != c.overflow {
			t.Errorf("ContextOverflow(%q) = %t, want %t", c.text, got, c.overflow)
		}
	}
}
