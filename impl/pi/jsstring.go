package pi

import (
	"strings"
	"unicode/utf8"
)

// decodeUnit decodes one WTF-8 sequence at s[i:]. It returns a Unicode scalar
// value, a surrogate code unit (0xD800..0xDFFF) for a 3-byte generalized
// sequence, or (utf8.RuneError, 1) for bytes that are not WTF-8.
func decodeUnit(s string, i int) (rune, int) {
	b := s[i]
	if b < utf8.RuneSelf {
		return rune(b), 1
	}
	if b == 0xED && i+2 < len(s) && s[i+1] >= 0xA0 && s[i+1] <= 0xBF && s[i+2]&0xC0 == 0x80 {
		return 0xD000 | rune(s[i+1]&0x3F)<<6 | rune(s[i+2]&0x3F), 3
	}
	return utf8.DecodeRuneInString(s[i:])
}

func isHighSurrogate(r rune) bool { return r >= 0xD800 && r <= 0xDBFF }
func isLowSurrogate(r rune) bool  { return r >= 0xDC00 && r <= 0xDFFF }

// appendSurrogate writes a lone surrogate in its 3-byte generalized form.
func appendSurrogate(dst []byte, r rune) []byte {
	return append(dst, 0xED, byte(0x80|(r>>6)&0x3F), byte(0x80|r&0x3F))
}

// endsWithHighSurrogate reports the high surrogate a WTF-8 buffer ends with.
func endsWithHighSurrogate(b []byte) (rune, bool) {
	n := len(b)
	if n >= 3 && b[n-3] == 0xED && b[n-2] >= 0xA0 && b[n-2] <= 0xAF && b[n-1]&0xC0 == 0x80 {
		return 0xD000 | rune(b[n-2]&0x3F)<<6 | rune(b[n-1]&0x3F), true
	}
	return 0, false
}

// AppendCodeUnit appends one code point or lone surrogate to a WTF-8 buffer
// with JS concatenation semantics: a low surrogate that follows a lone high
// surrogate joins it into one astral character.
func AppendCodeUnit(dst []byte, r rune) []byte {
	switch {
	case isLowSurrogate(r):
		if hi, ok := endsWithHighSurrogate(dst); ok {
			dst = dst[:len(dst)-3]
			return utf8.AppendRune(dst, 0x10000+(hi-0xD800)<<10+(r-0xDC00))
		}
		return appendSurrogate(dst, r)
	case isHighSurrogate(r):
		return appendSurrogate(dst, r)
	case r < 0 || r > utf8.MaxRune:
		return utf8.AppendRune(dst, utf8.RuneError)
	}
	return utf8.AppendRune(dst, r)
}

// Normalize turns arbitrary bytes into canonical WTF-8: surrogate pairs
// written as two 3-byte sequences are joined, and bytes that are not WTF-8
// become U+FFFD. Canonical input is returned unchanged without copying.
func Normalize(s string) string {
	if IsCanonical(s) {
		return s
	}
	return normalizeSlow(s)
}

// IsCanonical reports whether s is canonical WTF-8, a string Normalize
// returns unchanged: UTF-8 but for lone surrogates in their 3-byte form,
// never a high one followed by a low one (that pair is one character).
func IsCanonical(s string) bool {
	if utf8.ValidString(s) {
		return true // UTF-8 holds no surrogate at all
	}
	for i := 0; i < len(s); {
		r, n := decodeUnit(s, i)
		if (r == utf8.RuneError && n == 1) || isLowSurrogate(r) && i >= 3 && s[i-3] == 0xED && s[i-2] >= 0xA0 && s[i-2] <= 0xAF {
			return false
		}
		i += n
	}
	return true
}

func normalizeSlow(s string) string {
	buf := make([]byte, 0, len(s))
	for i := 0; i < len(s); {
		r, n := decodeUnit(s, i)
		buf = AppendCodeUnit(buf, r)
		i += n
	}
	return string(buf)
}

// UTF16Len is JS .length: the number of UTF-16 code units.
func UTF16Len(s string) int {
	n := 0
	for i := 0; i < len(s); {
		b := s[i]
		if b < utf8.RuneSelf {
			n++
			i++
			continue
		}
		r, size := decodeUnit(s, i)
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
		i += size
	}
	return n
}

// SliceUTF16 is JS s.slice(from) for 0 <= from: the string from code unit
// `from` on. Cutting an astral character leaves its low surrogate alone.
func SliceUTF16(s string, from int) string {
	if from <= 0 {
		return s
	}
	units := 0
	for i := 0; i < len(s); {
		if units == from {
			return s[i:]
		}
		r, size := decodeUnit(s, i)
		if r >= 0x10000 {
			if units+1 == from {
				lo := 0xDC00 + (r-0x10000)&0x3FF
				return string(appendSurrogate(nil, lo)) + s[i+size:]
			}
			units += 2
		} else {
			units++
		}
		i += size
	}
	return ""
}

// SubstringUTF16 is JS s.substring(from, to) with both bounds already
// clamped to [0, UTF16Len(s)] and from <= to.
func SubstringUTF16(s string, from, to int) string {
	u := ToUTF16(s)
	return FromUTF16(u[from:to])
}

// Concat is JS a + b: a lone high surrogate at the end of a and a lone low
// surrogate at the start of b become one astral character.
func Concat(a, b string) string {
	if len(a) >= 3 && len(b) >= 3 && b[0] == 0xED && b[1] >= 0xB0 && b[1] <= 0xBF {
		if hi, ok := endsWithHighSurrogate([]byte(a[len(a)-3:])); ok {
			lo, _ := decodeUnit(b, 0)
			var sb strings.Builder
			sb.Grow(len(a) + len(b) - 2)
			sb.WriteString(a[:len(a)-3])
			sb.WriteRune(0x10000 + (hi-0xD800)<<10 + (lo - 0xDC00))
			sb.WriteString(b[3:])
			return sb.String()
		}
	}
	return a + b
}

// HasPrefixUTF16 is JS s.startsWith(prefix).
func HasPrefixUTF16(s, prefix string) bool {
	if strings.HasPrefix(s, prefix) {
		return true
	}
	// Only a lone high surrogate at the end of prefix can match the first
	// half of an astral character in s.
	if _, ok := endsWithHighSurrogate([]byte(prefix)); !ok {
		return false
	}
	p := ToUTF16(prefix)
	u := ToUTF16(s)
	if len(p) > len(u) {
		return false
	}
	for i := range p {
		if p[i] != u[i] {
			return false
		}
	}
	return true
}

// ToUTF16 converts a WTF-8 string to its JS code units.
func ToUTF16(s string) []uint16 {
	u := make([]uint16, 0, len(s))
	for i := 0; i < len(s); {
		b := s[i]
		if b < utf8.RuneSelf {
			u = append(u, uint16(b))
			i++
			continue
		}
		r, size := decodeUnit(s, i)
		if r >= 0x10000 {
			r -= 0x10000
			u = append(u, uint16(0xD800+(r>>10)), uint16(0xDC00+r&0x3FF))
		} else {
			u = append(u, uint16(r))
		}
		i += size
	}
	return u
}

// FromUTF16 converts JS code units to canonical WTF-8.
func FromUTF16(u []uint16) string {
	buf := make([]byte, 0, len(u))
	for i := 0; i < len(u); i++ {
		c := rune(u[i])
		if c < utf8.RuneSelf {
			buf = append(buf, byte(c))
			continue
		}
		if isHighSurrogate(c) && i+1 < len(u) && isLowSurrogate(rune(u[i+1])) {
			buf = utf8.AppendRune(buf, 0x10000+(c-0xD800)<<10+(rune(u[i+1])-0xDC00))
			i++
			continue
		}
		buf = AppendCodeUnit(buf, c)
	}
	return string(buf)
}
