package lane

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/frameproof/frameproof/impl/lane"
	"github.com/frameproof/frameproof/impl/pi"
	ml "github.com/frameproof/frameproof/model/lane"
	"github.com/frameproof/frameproof/props/peer"
)

// jsOnlyUnits are characters on which Go's regexp and a JavaScript regexp
// with the i flag and no u flag disagree: non-ASCII letters Go's (?i)
// folds onto s and k, line terminators JS's `.` refuses, JS whitespace
// Go's `\s` lacks, and an astral character (two units to JS's `.`).
var jsOnlyUnits = []string{"\u017f", "\u212a", "\r", "\u2028", "\u2029", "\v", "\u00a0", "\u1680", "\u2003",
	"\u202f", "\u3000", "\ufeff", "\U0001F600", "\u00e9", "\n", " "}

// genJSClassifyTexts are error texts built from pi-ai's examples with some
// characters replaced by jsOnlyUnits: each s or k may become its non-ASCII
// fold, each space or separator another unit.
func genJSClassifyTexts(r *rand.Rand, n int) []string {
	out := make([]string, n)
	for i := range out {
		var b strings.Builder
		for k := 0; k < 1+r.IntN(2); k++ {
			if k > 0 {
				b.WriteString(jsOnlyUnits[r.IntN(len(jsOnlyUnits))])
			}
			for _, c := range errorFragments[r.IntN(len(errorFragments))] {
				switch {
				case (c == 's' || c == 'S') && r.IntN(3) == 0:
					b.WriteString("\u017f")
				case (c == 'k' || c == 'K') && r.IntN(3) == 0:
					b.WriteString("\u212a")
				case (c == ' ' || c == '_') && r.IntN(2) == 0:
					b.WriteString(jsOnlyUnits[r.IntN(len(jsOnlyUnits))])
				default:
					b.WriteRune(c)
				}
			}
		}
		out[i] = b.String()
	}
	return out
}

// pi-ai 1.0.3 utils/retry.js isRetryableAssistantError and
// utils/overflow.js isContextOverflow test JavaScript regexps (/…/i, no u
// flag): on texts where Go's regexp would read a character otherwise
// (ſ, K, CR, U+2028, NBSP, VT, an emoji), both impl/lane's and the model's
// predicates answer as pi-ai running does ("ſervice unavailable" is not
// retryable).
func TestClassificationReadsTextAsJavaScript(t *testing.T) {
	dir := peer.Require(t, peer.PiAI)
	n := 3000
	if testing.Short() {
		n = 600
	}
	texts := append([]string{"\u017fervice unavailable", "rate\u212aimit", "rate\rlimit", "rate\U0001F600limit",
		"Input length (1) exceeds model's maximum context length\u00a0(2)", "400\u2028(no body)", "413\v(no body)",
		"input token count\u2029exceeds the maximum", "Service unavailable\u017f: prompt too long"},
		genJSClassifyTexts(rand.New(rand.NewPCG(25, 4)), n)...)
	cases := make([]classifyCase, len(texts))
	for i, s := range texts {
		cases[i] = classifyCase{Message: map[string]any{"stopReason": "error", "errorMessage": s, "provider": "cerebras",
			"usage": map[string]any{"input": 0, "cacheRead": 0, "output": 0}}}
	}
	want := peerClassify(t, dir, cases)
	for i, s := range texts {
		m := &pi.AssistantMessage{StopReason: pi.StopError, ErrorMessage: pi.Str(s), Provider: "cerebras"}
		model := [2]bool{ml.RetryableError(m), ml.ContextOverflow(m, 0)}
		impl := [2]bool{lane.IsRetryableAssistantError(m), lane.IsContextOverflow(m, 0)}
		peerSays := [2]bool{want[i][0], want[i][1]}
		require.Equal(t, peerSays, model, "model: %q (retryable, overflow)", s)
		require.Equal(t, peerSays, impl, "impl/lane: %q (retryable, overflow)", s)
	}
	require.Equal(t, [2]bool{false, false}, [2]bool{want[0][0], want[0][1]}, "pi-ai calls %q retryable", texts[0])
}
