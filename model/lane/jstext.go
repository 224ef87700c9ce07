package lane

import "github.com/frameproof/frameproof/impl/pi"

// pi-ai's predicates run RegExp.prototype.test with the i flag and no u
// flag (ECMAScript, RegExp pattern semantics, non-Unicode mode). The text
// is a sequence of UTF-16 code units, and:
//
//   - Canonicalize(ch) (the i flag) is toUpperCase(ch), except that a
//     unit of 128 or more never canonicalizes to one below 128: the ASCII
//     letters of a pattern match ASCII letters of the text only (Go's (?i)
//     also matches U+017F to s and U+212A to k);
//   - `.` matches any unit except LineTerminator (LF, CR, U+2028, U+2029);
//     Go's `.` matches a whole code point, and only LF is excluded;
//   - `\s` is WhiteSpace (TAB, VT, FF, ZWNBSP, every Zs space) or
//     LineTerminator; Go's `\s` is only TAB, LF, FF, CR and space.
//
// jsUnits states the text as Go's regexp must see it to answer as JS does
// for the tables' patterns (whose letters, digits and punctuation are
// ASCII): one rune per unit, an ASCII unit as itself, a line terminator as
// LF, any other JS whitespace as TAB, and any other unit (a surrogate
// half included) as U+FFFD, which only `.` matches.
func jsUnits(text string) string {
	units := pi.ToUTF16(text)
	out := make([]rune, len(units))
	for i, u := range units {
		switch {
		case u == '\n' || u == '\r' || u == 0x2028 || u == 0x2029:
			out[i] = '\n'
		case u == '\v' || u == '\f' || u == 0xFEFF || zsSpace(u):
			out[i] = '\t'
		case u < 0x80:
			out[i] = rune(u)
		default:
			out[i] = 0xFFFD
		}
	}
	return string(out)
}

// zsSpace: the Unicode Zs category (space separators) outside ASCII.
func zsSpace(u uint16) bool {
	return u == 0xA0 || u == 0x1680 || (u >= 0x2000 && u <= 0x200A) || u == 0x202F || u == 0x205F || u == 0x3000
}
