package frames

import (
	"errors"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/frameproof/frameproof/impl/pi"
)

// ParseStreamingJSON is what pi-ai's parseStreamingJson (utils/json-parse.js)
// returns for a possibly incomplete JSON text s (WTF-8, as pi.Normalize
// leaves it). The rules, in pi-ai's order:
//
//  1. s empty or all JS whitespace: {}.
//  2. JSON.parse(s); if that throws and repairJson(s) differs from s,
//     JSON.parse(repairJson(s)).
//  3. partial-json's parse(s) with every kind allowed partial; a null or
//     undefined result is {}.
//  4. the same on repairJson(s).
//  5. {}.
//
// Every structural character is ASCII, so the code-unit positions pi-ai's
// code cuts at are byte positions of the WTF-8 text.
func ParseStreamingJSON(s string) pi.JSONValue {
	if jsTrim(s) == "" {
		return pi.EmptyObject()
	}
	if v, err := pi.ParseJSON(s); err == nil {
		return v
	}
	repaired := repairJSON(s)
	if repaired != s {
		if v, err := pi.ParseJSON(repaired); err == nil {
			return v
		}
	}
	for _, text := range []string{s, repaired} {
		if v, err := partialParse(text); err == nil {
			if v.Kind() == pi.Null || v.IsUndefined() {
				return pi.EmptyObject()
			}
			return v
		}
	}
	return pi.EmptyObject()
}

// repairJSON is pi-ai's repairJson: inside string literals, raw control
// characters are escaped and a backslash that does not start a valid escape
// is doubled; text outside strings is kept as is.
func repairJSON(s string) string {
	var b strings.Builder
	inString := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case !inString:
			b.WriteByte(c)
			inString = c == '"'
		case c == '"':
			b.WriteByte(c)
			inString = false
		case c == '\\':
			i += repairEscape(&b, s, i)
		case c < 0x20:
			b.WriteString(escapeControl(c))
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// repairEscape writes the repair of the backslash at s[i] and returns how
// many bytes after it the repair consumed. A "\u" with four hex digits is
// kept whole; "\u" without them is kept as it is (u counts as a valid escape
// letter); any other valid escape letter is kept; anything else, or the end
// of the text, gets its backslash doubled and the next byte is left for the
// next step.
func repairEscape(b *strings.Builder, s string, i int) int {
	if i+1 >= len(s) {
		b.WriteString(`\\`)
		return 0
	}
	next := s[i+1]
	if next == 'u' && i+6 <= len(s) && allHex(s[i+2:i+6]) {
		b.WriteString(s[i : i+6])
		return 5
	}
	if strings.IndexByte(`"\/bfnrtu`, next) >= 0 {
		b.WriteByte('\\')
		b.WriteByte(next)
		return 1
	}
	b.WriteString(`\\`)
	return 0
}

func allHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// escapeControl is pi-ai's escapeControlCharacter: the short escapes where
// JSON has one, else \u00xx in lower-case hex.
func escapeControl(c byte) string {
	switch c {
	case '\b':
		return `\b`
	case '\f':
		return `\f`
	case '\n':
		return `\n`
	case '\r':
		return `\r`
	case '\t':
		return `\t`
	}
	const hex = "0123456789abcdef"
	return `\u00` + string([]byte{hex[c>>4], hex[c&0xF]})
}

// jsTrim is String.prototype.trim: it strips WhiteSpace (tab, VT, FF,
// ZWNBSP and every Zs character) and LineTerminator (LF, CR, LS, PS) from
// both ends. A lone surrogate is not whitespace.
func jsTrim(s string) string {
	for len(s) > 0 {
		r, n := utf8.DecodeRuneInString(s)
		if !isJSSpace(r, n) {
			break
		}
		s = s[n:]
	}
	for len(s) > 0 {
		r, n := utf8.DecodeLastRuneInString(s)
		if !isJSSpace(r, n) {
			break
		}
		s = s[:len(s)-n]
	}
	return s
}

func isJSSpace(r rune, width int) bool {
	if r == utf8.RuneError && width <= 1 {
		return false
	}
	switch r {
	case '\t', '\v', '\f', '\n', '\r', 0xFEFF, 0x2028, 0x2029:
		return true
	}
	return unicode.Is(unicode.Zs, r)
}

// jsSubstring is String.prototype.substring on byte positions: each bound is
// clamped to [0, len(s)], and the bounds are swapped when from > to.
// partial-json passes it lastIndexOf results, which may be -1 or lie before
// the start it means, so the swap matters.
func jsSubstring(s string, from, to int) string {
	from = max(0, min(from, len(s)))
	to = max(0, min(to, len(s)))
	if from > to {
		from, to = to, from
	}
	return s[from:to]
}

// errPartial is any exception inside partial-json: its callers catch every
// exception alike, so one value stands for all of them.
var errPartial = errors.New("model/frames: partial-json threw")

// partialParse is partial-json 0.1.7's parse(s, Allow.ALL): it parses
// jsTrim(s) with partialParser and throws when that is empty.
func partialParse(s string) (pi.JSONValue, error) {
	t := jsTrim(s)
	if t == "" {
		return pi.JSONValue{}, errPartial
	}
	p := &partialParser{s: t}
	return p.any(0)
}
