package lane

import "unicode/utf8"

// pi-ai's retry and overflow patterns are JavaScript regexps with the i
// flag and without the u flag. They match UTF-16 code units, not code
// points, and read a few classes differently from Go's regexp:
//
//   - case: a unit matches a pattern letter only when both canonicalize
//     (toUpperCase) to the same unit, and a non-ASCII unit never
//     canonicalizes onto an ASCII one, so U+017F (ſ) matches no s and
//     U+212A (Kelvin sign) no k, where Go's (?i) folds both;
//   - `.` is any unit but the line terminators \n, \r, U+2028 and U+2029
//     (Go: any code point but \n), and an astral character is two units;
//   - `\s` is JS WhiteSpace and LineTerminator: \t \n \v \f \r, space,
//     U+00A0, U+1680, U+2000–U+200A, U+2028, U+2029, U+202F, U+205F,
//     U+3000, U+FEFF (Go: \t \n \f \r and space only).
//
// jsPatternText rewrites an error text into one on which Go's regexp gives
// JS's verdict for every pattern of those lists (ASCII literals, `.`, `\s`,
// `\d`, classes of ASCII characters, anchors at the text's ends), one
// character per UTF-16 unit: ASCII stays (but \r becomes \n and \v
// becomes \f), a line terminator becomes \n, other JS whitespace \f, and
// any other unit NUL, which only `.` matches. It returns s itself when
// nothing needs rewriting: ASCII without \r or \v.
func jsPatternText(s string) string {
	i := 0
	for i < len(s) && s[i] < utf8.RuneSelf && s[i] != '\r' && s[i] != '\v' {
		i++
	}
	if i == len(s) {
		return s
	}
	out := make([]byte, i, len(s)+4)
	copy(out, s)
	for i < len(s) {
		c := s[i]
		if c < utf8.RuneSelf {
			switch c {
			case '\r':
				c = '\n'
			case '\v':
				c = '\f'
			}
			out = append(out, c)
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 && i+2 < len(s) && s[i] == 0xED && s[i+1]&0xE0 == 0xA0 && s[i+2]&0xC0 == 0x80 {
			n = 3 // a lone surrogate in WTF-8 (impl/pi): one unit
		}
		switch {
		case r == 0x2028 || r == 0x2029:
			out = append(out, '\n')
		case jsSpace(r):
			out = append(out, '\f')
		case r > 0xFFFF:
			out = append(out, 0, 0) // a surrogate pair: two units
		default:
			out = append(out, 0)
		}
		i += n
	}
	return string(out)
}

// jsSpace reports whether the non-ASCII code point r is JS WhiteSpace
// (Unicode Zs and U+FEFF).
func jsSpace(r rune) bool {
	switch {
	case r == 0xA0, r == 0x1680, r >= 0x2000 && r <= 0x200A, r == 0x202F, r == 0x205F, r == 0x3000, r == 0xFEFF:
		return true
	}
	return false
}
