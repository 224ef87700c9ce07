package pi

import "unicode/utf8"

const hexDigits = "0123456789abcdef"

// AppendQuote appends s as JSON.stringify writes a string: \" \\ \b \f \n \r
// \t, other controls below 0x20 and lone surrogates as lowercase \uXXXX,
// everything else raw (no HTML escaping).
func AppendQuote(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		// Skip 8 plain ASCII bytes at a time: most text needs no escaping.
		for i+8 <= len(s) && plainASCII8(s[i:i+8]) {
			i += 8
		}
		if i == len(s) {
			break
		}
		b := s[i]
		if b >= 0x20 && b != '"' && b != '\\' && b < utf8.RuneSelf {
			i++
			continue
		}
		if b < utf8.RuneSelf {
			dst = append(dst, s[start:i]...)
			switch b {
			case '"':
				dst = append(dst, '\\', '"')
			case '\\':
				dst = append(dst, '\\', '\\')
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xF])
			}
			i++
			start = i
			continue
		}
		if b >= 0xC2 && b <= 0xDF && i+1 < len(s) && s[i+1]&0xC0 == 0x80 {
			i += 2 // a valid 2-byte character (Latin, Greek, Cyrillic...): raw
			continue
		}
		r, size := decodeUnit(s, i)
		switch {
		case r >= 0xD800 && r <= 0xDFFF:
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', hexDigits[r>>12], hexDigits[r>>8&0xF], hexDigits[r>>4&0xF], hexDigits[r&0xF])
			start = i + size
		case r == utf8.RuneError && size == 1:
			// Not WTF-8: a JS string cannot hold it; write what a decoder reads.
			dst = append(dst, s[start:i]...)
			dst = append(dst, "\uFFFD"...)
			start = i + size
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// QuoteJSON is AppendQuote into a new string.
func QuoteJSON(s string) string { return string(AppendQuote(nil, s)) }

// Masks for plainASCII8: one byte value repeated in every byte of a word.
const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// plainASCII8 reports whether the 8 bytes of w are all written as they are:
// ASCII, not a control character, not '"' and not '\\'. It tests all eight
// at once (SWAR): (v - n*ones) &^ v has a byte's high bit set when that byte
// of v is below n (exact for "any byte", which is all this needs), and a
// byte equal to c is a zero byte of v ^ c*ones.
func plainASCII8(w string) bool {
	x := uint64(w[0]) | uint64(w[1])<<8 | uint64(w[2])<<16 | uint64(w[3])<<24 |
		uint64(w[4])<<32 | uint64(w[5])<<40 | uint64(w[6])<<48 | uint64(w[7])<<56
	q := x ^ '"'*ones
	bs := x ^ '\\'*ones
	control := (x - 0x20*ones) &^ x
	quote := (q - ones) &^ q
	backslash := (bs - ones) &^ bs
	return (x|control|quote|backslash)&highs == 0
}
