package pi

import "unicode/utf8"

const hexDigits = "0123456789abcdef"

// AppendQuote appends s as JSON.stringify writes a string: \" \\ \b \f \n \r
// \t, other controls below 0x20 and lone surrogates as lowercase \uXXXX,
// everything else raw (no HTML escaping).
func AppendQuote(dst []byte, s string) []byte {
	return append(appendQuoted(append(dst, '"'), s), '"')
}

// appendQuoted is AppendQuote without the enclosing quotes, for writers
// that merge them into the constant text around the string.
func appendQuoted(dst []byte, s string) []byte {
	start := 0
	for i := 0; i < len(s); {
		// Skip 8 plain ASCII bytes at a time: most text needs no escaping.
		for i+8 <= len(s) && plainWord(loadWord(s[i:i+8])) {
			i += 8
		}
		// Then byte by byte to the next byte that needs a look, at most
		// to the end of the 8-byte window the word test turned down.
		end := min(i+8, len(s))
		for i < end && plainByte[s[i]] {
			i++
		}
		if i == end {
			continue
		}
		b := s[i]
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
	return append(dst, s[start:]...)
}

// QuoteJSON is AppendQuote into a new string.
func QuoteJSON(s string) string { return string(AppendQuote(nil, s)) }

// plainByte[b] reports whether byte b is written as it is: ASCII, not a
// control character, not '"' and not '\\'.
var plainByte = func() (t [256]bool) {
	for b := 0x20; b < utf8.RuneSelf; b++ {
		t[b] = b != '"' && b != '\\'
	}
	return t
}()

// Masks for plainWord: one byte value repeated in every byte of a word.
const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// loadWord reads the 8 bytes of w as a little-endian word.
func loadWord(w string) uint64 {
	_ = w[7]
	return uint64(w[0]) | uint64(w[1])<<8 | uint64(w[2])<<16 | uint64(w[3])<<24 |
		uint64(w[4])<<32 | uint64(w[5])<<40 | uint64(w[6])<<48 | uint64(w[7])<<56
}

// plainWord reports whether the 8 bytes of x are all written as they are:
// ASCII, not a control character, not '"' and not '\\'. It tests all eight
// at once (SWAR): (v - n*ones) &^ v has a byte's high bit set when that byte
// of v is below n (exact for "any byte", which is all this needs), and a
// byte equal to c is a zero byte of v ^ c*ones.
func plainWord(x uint64) bool {
	q := x ^ '"'*ones
	bs := x ^ '\\'*ones
	return (x|(x-0x20*ones)&^x|(q-ones)&^q|(bs-ones)&^bs)&highs == 0
}

// PlainJSONByte reports whether byte b stands for itself inside a JSON
// string literal (ASCII, not a control character, '"' or '\\'): what
// AppendQuote writes unescaped, and what a literal's reader may copy.
func PlainJSONByte(b byte) bool { return plainByte[b] }

// PlainJSONWord is PlainJSONByte for all eight bytes of x at once.
func PlainJSONWord(x uint64) bool { return plainWord(x) }
