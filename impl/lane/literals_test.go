package lane

import (
	"regexp/syntax"
	"strings"
	"testing"

	"github.com/frameproof/frameproof/impl/pi"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// classifyFilters are every prefiltered pattern of the classification:
// each known pi-ai release's retry and overflow lists (utils/retry.js,
// utils/overflow.js).
func classifyFilters() []filteredRE {
	var out []filteredRE
	for _, r := range pi.AIReleases {
		p := patternsOf(r)
		out = append(out, p.nonRetryable, p.retryable)
		out = append(out, p.overflow...)
		out = append(out, p.nonOverflow...)
	}
	return out
}

// fragments are pieces of texts that match, or nearly match, the patterns:
// their literals whole, cut short and in other cases, digits, separators and
// letters that (?i) folds onto ASCII ones (U+017F onto s, U+212A onto k).
func fragments() []string {
	frags := []string{" ", "_", "-", ":", "(", ")", ",", "'", "0", "413", "400", "429", "128000", "tokens", "no body",
		"status code", "ſ", "K", "é", "\n", "Throttling error", "Service unavailable"}
	for _, f := range classifyFilters() {
		for _, l := range f.lits {
			frags = append(frags, l, strings.ToUpper(l), l[:len(l)/2], l[len(l)/2:])
		}
	}
	return frags
}

// The prefilter never changes a verdict: on random texts built from the
// patterns' own pieces, and on texts that match each pattern, every
// filtered pattern answers as its regexp does.
func TestLiteralPrefilterKeepsEveryVerdict(t *testing.T) {
	filters, frags := classifyFilters(), fragments()
	rapid.Check(t, func(t *rapid.T) {
		parts := rapid.SliceOfN(rapid.OneOf(rapid.SampledFrom(frags), rapid.String()), 0, 8).Draw(t, "parts")
		s := strings.Join(parts, "")
		for _, f := range filters {
			if got, want := f.MatchString(s), f.re.MatchString(s); got != want {
				t.Fatalf("%q on %q: prefiltered %v, regexp %v", f.re, s, got, want)
			}
		}
	})
	for _, f := range filters {
		p, err := syntax.Parse(f.re.String(), syntax.Perl)
		require.NoError(t, err)
		for _, ex := range examples(p) {
			require.True(t, f.re.MatchString(ex), "%q is an example of %q", ex, f.re)
			for _, s := range []string{ex, "x " + strings.ToUpper(ex) + " y"} {
				for _, g := range filters {
					require.Equal(t, g.re.MatchString(s), g.MatchString(s), "%q on %q", g.re, s)
				}
			}
		}
	}
	for _, s := range []string{"prompt is too long: 213462 tokens > 200000 maximum", "Rate limit reached", "503 Service Unavailable",
		"This model's maximum context length is 128000 tokens", "input (4000 tokens) is longer than the model's context length (2048 tokens)",
		"SOCKET HANG UP", "ſocket hang up", "Request timed out", "exceeds the limit of 12"} {
		for _, f := range filters {
			require.Equal(t, f.re.MatchString(s), f.MatchString(s), "%q on %q", f.re, s)
		}
	}
}

// The prefilter is real: every pattern gets literals, and a text with none
// of them is answered without the regexp.
func TestLiteralPrefilterHasLiterals(t *testing.T) {
	for _, f := range classifyFilters() {
		require.NotEmpty(t, f.lits, "%q", f.re)
	}
	f := compileFiltered(`(?i)exceeds (?:the )?maximum allowed input length of [\d,]+ tokens?`)
	require.Equal(t, []string{"maximum allowed input length of "}, f.lits)
	f = compileFiltered(`(?i)rate.?limit|^(Throttling error|Service unavailable):|\d+`)
	require.Nil(t, f.lits, `\d+ requires no literal`)
	for _, tc := range []struct {
		pattern string
		lits    []string
	}{
		{`(?i)a|bc`, []string{"a", "bc"}},
		{`x*`, nil},
		{`a(?:bcd)?`, []string{"a"}},
		{`a(?:bcd)*`, []string{"a"}},
		{`(?:ab)+`, []string{"ab"}},
		{`(?:ab){0,2}`, nil},
		{`é`, nil},
	} {
		p, err := syntax.Parse(tc.pattern, syntax.Perl)
		require.NoError(t, err)
		require.Equal(t, tc.lits, requiredLiterals(p.Simplify()), tc.pattern)
	}
}

// examples are texts that re matches: through every alternative, with and
// without every optional part (at most a few hundred).
func examples(re *syntax.Regexp) []string {
	switch re.Op {
	case syntax.OpLiteral:
		return []string{string(re.Rune)}
	case syntax.OpCharClass:
		return []string{string(re.Rune[0])}
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return []string{"z"}
	case syntax.OpCapture, syntax.OpPlus:
		return examples(re.Sub[0])
	case syntax.OpStar, syntax.OpQuest:
		return append([]string{""}, examples(re.Sub[0])...)
	case syntax.OpRepeat:
		one := examples(re.Sub[0])
		out := make([]string, len(one))
		for i, e := range one {
			out[i] = strings.Repeat(e, max(re.Min, 1))
		}
		if re.Min == 0 {
			out = append(out, "")
		}
		return out
	case syntax.OpConcat:
		out := []string{""}
		for _, sub := range re.Sub {
			var next []string
			for _, a := range out {
				for _, b := range examples(sub) {
					if len(next) < 300 {
						next = append(next, a+b)
					}
				}
			}
			out = next
		}
		return out
	case syntax.OpAlternate:
		var out []string
		for _, sub := range re.Sub {
			out = append(out, examples(sub)...)
		}
		return out
	}
	return []string{""} // anchors and empty matches
}
