package lane

import (
	"strings"
	"testing"

	"github.com/frameproof/frameproof/impl/pi"
	"pgregory.net/rapid"
)

// decideByRegexp is decide with every row read by its regexp (on the
// text as JavaScript reads it, jsUnits).
func decideByRegexp(table []errorRow, release pi.AIRelease, text string) (verdict, matched bool) {
	text = jsUnits(text)
	for _, r := range table {
		if r.inRelease(release) && r.re.MatchString(text) {
			return r.match, true
		}
	}
	return false, false
}

// TestDecideMatchesRegexps: decide's substring test of a literal row
// gives the regexps' answer, on texts made of the tables' patterns in
// any case, with the non-ASCII letters that fold onto ASCII ones (K, ſ),
// around and inside them, and on any text.
func TestDecideMatchesRegexps(t *testing.T) {
	literals := 0
	var pieces []string
	for _, table := range [][]errorRow{retryRows, overflowRows} {
		for _, r := range table {
			pieces = append(pieces, r.pattern)
			if r.literal != "" {
				literals++
			}
		}
	}
	if literals < 40 {
		t.Fatalf("only %d literal rows", literals)
	}
	pieces = append(pieces, "K", "\u212a", "ſ", "S", " ", "\n", ":", "é", "\xff", "Throttling error:", "400 (no body)")
	rapid.Check(t, func(t *rapid.T) {
		var b strings.Builder
		for range rapid.IntRange(0, 4).Draw(t, "pieces") {
			p := rapid.SampledFrom(pieces).Draw(t, "piece")
			switch rapid.IntRange(0, 4).Draw(t, "case") {
			case 0:
				p = strings.ToUpper(p)
			case 1:
				p = strings.ReplaceAll(strings.ReplaceAll(p, "k", "\u212a"), "s", "ſ")
			case 2:
				if len(p) > 1 {
					cut := rapid.IntRange(0, len(p)-1).Draw(t, "cut")
					p = p[:cut] + p[cut+1:]
				}
			}
			b.WriteString(p)
			if rapid.Bool().Draw(t, "text") {
				b.WriteString(rapid.String().Draw(t, "between"))
			}
		}
		text := b.String()
		for i, table := range [][]errorRow{retryRows, overflowRows} {
			for _, r := range pi.AIReleases {
				gv, gm := decide(table, r, text)
				wv, wm := decideByRegexp(table, r, text)
				if gv != wv || gm != wm {
					t.Fatalf("table %d, pi-ai %s, %q: decide %v %v, the regexps %v %v", i, r, text, gv, gm, wv, wm)
				}
			}
		}
	})
}
