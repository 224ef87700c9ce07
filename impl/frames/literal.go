package frames

import (
	"encoding/binary"
	"unicode/utf8"

	"github.com/frameproof/frameproof/impl/pi"
)

// decodeLiteral appends the value of the JSON string literal whose
// contents (between the quotes) are raw to dst, when raw is in the fast
// shape: no \u escape, no control character, no unescaped quote, and only
// UTF-8 without surrogate forms. Otherwise it returns dst as it was and
// false, and the general parser reads the frame.
//
// The decoded value is never longer than raw, so dst grows once and the
// loop writes into it by index: plain ASCII eight bytes at a time (most
// text), everything else byte by byte.
func decodeLiteral(dst, raw []byte) ([]byte, bool) {
	n := len(dst)
	dst = growFor(dst, len(raw))
	out := dst[n : n+len(raw)]
	w := 0
	for i := 0; i < len(raw); {
		if i+8 <= len(raw) {
			if x := binary.LittleEndian.Uint64(raw[i:]); pi.PlainJSONWord(x) {
				binary.LittleEndian.PutUint64(out[w:], x)
				i, w = i+8, w+8
				continue
			}
		}
		c := raw[i]
		switch {
		case pi.PlainJSONByte(c):
			out[w] = c
			i, w = i+1, w+1
		case c == '\\':
			if i+1 == len(raw) || unescape(raw[i+1]) == 0 {
				return dst[:n], false // \u, a bad escape, or the end
			}
			out[w] = unescape(raw[i+1])
			i, w = i+2, w+1
		case c >= 0xC2 && c <= 0xDF && i+1 < len(raw) && raw[i+1]&0xC0 == 0x80:
			// a 2-byte character (Latin, Greek, Cyrillic...): valid as is
			out[w], out[w+1] = c, raw[i+1]
			i, w = i+2, w+2
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRune(raw[i:])
			if r == utf8.RuneError && size == 1 {
				return dst[:n], false // not UTF-8, or a surrogate form
			}
			w += copy(out[w:], raw[i:i+size])
			i += size
		default:
			return dst[:n], false // a control character or a bare quote
		}
	}
	return dst[:n+w], true
}

// validLiteral reports whether decodeLiteral accepts raw.
func validLiteral(raw []byte) bool {
	_, ok := decodeLiteral(nil, raw)
	return ok
}

// unescape is the character a one-letter JSON escape stands for (0 for
// any other letter, \u included).
func unescape(e byte) byte {
	switch e {
	case '"', '\\', '/':
		return e
	case 'b':
		return '\b'
	case 'f':
		return '\f'
	case 'n':
		return '\n'
	case 'r':
		return '\r'
	case 't':
		return '\t'
	}
	return 0
}

// canonicalBody reports whether raw, the contents of a JSON string literal,
// is exactly what JSON.stringify writes for a string without surrogates
// (pi.AppendQuote's output between its quotes): ASCII other than controls,
// '"' and '\\' as it is, the escapes \" \\ \b \f \n \r \t, and UTF-8
// without surrogate forms. Such bodies concatenate to the body of the
// concatenated strings, since JSON.stringify escapes one character at a
// time and only surrogates pair across a boundary. Everything else (\/, a
// \u escape, a control character, a bare quote, bytes that are not UTF-8)
// is false; the caller decodes those.
func canonicalBody(raw []byte) bool {
	for i := nextSpecial(raw, 0); i < len(raw); i = nextSpecial(raw, i) {
		if i = canonicalSpecial(raw, i); i < 0 {
			return false
		}
	}
	return true
}

// canonicalSpecial is the index past the character at b[i], a byte that is
// not pi.PlainJSONByte, when JSON.stringify writes that character so inside
// a string (an escape it writes, or UTF-8 without surrogate forms), and -1
// otherwise (a bare quote, a control character, \/, a \u escape, bytes that
// are not UTF-8). canonicalBody and canonicalString (which ends at the
// quote first) share it.
func canonicalSpecial(b []byte, i int) int {
	switch c := b[i]; {
	case c == '\\':
		if i+1 == len(b) || !stringifyEscape(b[i+1]) {
			return -1
		}
		return i + 2
	case c >= 0xC2 && c <= 0xDF && i+1 < len(b) && b[i+1]&0xC0 == 0x80:
		return i + 2 // a 2-byte character (Latin, Greek, Cyrillic...)
	case c >= 0xE1 && c <= 0xEF && c != 0xED && i+2 < len(b) && b[i+1]&0xC0 == 0x80 && b[i+2]&0xC0 == 0x80:
		return i + 3 // a 3-byte character (CJK...): E0's overlongs and ED's surrogates excepted
	case c >= utf8.RuneSelf:
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size == 1 {
			return -1 // not UTF-8, or a surrogate form
		}
		return i + size
	}
	return -1
}

// stringifyEscape reports whether JSON.stringify writes the one-letter
// escape \e (it writes '/' as it is, and other controls as \u00XX).
func stringifyEscape(e byte) bool {
	switch e {
	case '"', '\\', 'b', 'f', 'n', 'r', 't':
		return true
	}
	return false
}

// appendBody appends s as JSON.stringify writes it, without the quotes.
func appendBody(dst []byte, s string) []byte {
	n := len(dst)
	dst = pi.AppendQuote(growFor(dst, len(s)+2), s)
	copy(dst[n:], dst[n+1:len(dst)-1])
	return dst[:len(dst)-2]
}

// decodeBody is the string whose JSON.stringify body is body (body is one).
func decodeBody(body []byte) string {
	if s, ok := decodeLiteral(nil, body); ok {
		return string(s)
	}
	v, err := pi.ParseJSON(`"` + string(body) + `"`)
	if err != nil {
		panic("frames: decodeBody given a body JSON.stringify cannot write: " + err.Error())
	}
	return v.Str()
}
