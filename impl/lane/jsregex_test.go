package lane

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/frameproof/frameproof/impl/pi"
)

// pi-ai 1.0.3 utils/retry.js isRetryableAssistantError and
// utils/overflow.js isContextOverflow: their /…/i regexps (no u flag) fold
// no non-ASCII letter onto an ASCII one, refuse CR, U+2028 and U+2029 at
// `.`, count an astral character as two units, and take NBSP and VT as
// `\s`. (props/lane TestClassificationReadsTextAsJavaScript runs pi-ai.)
func TestPatternsReadTextAsJavaScript(t *testing.T) {
	msg := func(s, provider string) *pi.AssistantMessage {
		return &pi.AssistantMessage{StopReason: pi.StopError, ErrorMessage: pi.Str(s), Provider: provider}
	}
	for s, want := range map[string]bool{
		"\u017fervice unavailable": false, "service unavailable": true, "rate\u212aimit": false,
		"rate\rlimit": false, "rate\nlimit": false, "rate\u2028limit": false, "rate limit": true, "rate\U0001F600limit": false,
		"rate\u00e9limit": true, "rate\xed\xa0\x80limit": true, // a lone surrogate is one unit
	} {
		require.Equal(t, want, IsRetryableAssistantError(msg(s, "")), "%q", s)
	}
	for s, want := range map[string]bool{
		"exceeds model's maximum context length\u00a0(5)": true, "exceeds model's maximum context length\v(5)": true,
		"input token count\rexceeds the maximum": false, "input token count \U0001F600 exceeds the maximum": true,
		"prompt\u00a0is too long": false, "Service unavailable\u2028: prompt too long": true,
	} {
		require.Equal(t, want, IsContextOverflow(msg(s, ""), 0), "%q", s)
	}
	require.True(t, IsContextOverflow(msg("413\u3000(no body)", "cerebras"), 0))
	require.False(t, IsContextOverflow(msg("413\u0085(no body)", "cerebras"), 0)) // NEL is not JS whitespace
}
