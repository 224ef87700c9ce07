package lane

import (
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode/utf8"
)

// filteredRE is a regexp with a literal prefilter: lits are ASCII
// lower-case strings at least one of which any match contains, ignoring
// case. An ASCII text that contains none of them cannot match, and is
// answered without running the regexp; any other text runs it. The verdict
// is the regexp's either way (TestLiteralPrefilterKeepsEveryVerdict): the
// prefilter only skips work. Error texts are matched against some thirty
// case-insensitive patterns each (pi-ai's retry and overflow lists), and
// running them all was most of the classification's cost.
type filteredRE struct {
	re   *regexp.Regexp
	lits []string // nil: no prefilter, always run re
}

func compileFiltered(pattern string) filteredRE {
	re := regexp.MustCompile(pattern)
	f := filteredRE{re: re}
	if p, err := syntax.Parse(pattern, syntax.Perl); err == nil {
		f.lits = requiredLiterals(p.Simplify())
	}
	return f
}

// matchLowered reports whether the regexp matches s, given low, the ASCII
// lower case of s when s is ASCII ("" and ascii false otherwise).
func (f filteredRE) matchLowered(s, low string, ascii bool) bool {
	if ascii && f.lits != nil && !containsAny(low, f.lits) {
		return false
	}
	return f.re.MatchString(s)
}

// MatchString is the regexp's verdict on s.
func (f filteredRE) MatchString(s string) bool {
	low, ascii := lowerASCII(s)
	return f.matchLowered(s, low, ascii)
}

func containsAny(s string, lits []string) bool {
	for _, l := range lits {
		if strings.Contains(s, l) {
			return true
		}
	}
	return false
}

// lowerASCII is s in ASCII lower case, and whether s is ASCII (false: ""
// returned, the text goes to the regexp: under (?i) Go folds a few
// non-ASCII letters onto ASCII ones, such as U+017F onto s).
func lowerASCII(s string) (string, bool) {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return "", false
		}
	}
	return strings.ToLower(s), true
}

// requiredLiterals returns ASCII lower-case strings at least one of which
// every match of re contains, ignoring case, or nil when it cannot tell.
func requiredLiterals(re *syntax.Regexp) []string {
	switch re.Op {
	case syntax.OpLiteral:
		s := string(re.Rune)
		for i := 0; i < len(s); i++ {
			if s[i] >= utf8.RuneSelf {
				return nil
			}
		}
		if s == "" {
			return nil
		}
		return []string{strings.ToLower(s)}
	case syntax.OpCapture, syntax.OpPlus:
		return requiredLiterals(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return requiredLiterals(re.Sub[0])
		}
		return nil
	case syntax.OpConcat:
		// a match contains a match of every part: the part whose
		// shortest literal is longest filters best
		var best []string
		for _, sub := range re.Sub {
			if l := requiredLiterals(sub); l != nil && (best == nil || shortest(l) > shortest(best)) {
				best = l
			}
		}
		return best
	case syntax.OpAlternate:
		var all []string
		for _, sub := range re.Sub {
			l := requiredLiterals(sub)
			if l == nil {
				return nil
			}
			all = append(all, l...)
		}
		return all
	}
	return nil
}

func shortest(lits []string) int {
	n := len(lits[0])
	for _, l := range lits[1:] {
		n = min(n, len(l))
	}
	return n
}
