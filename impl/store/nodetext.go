package store

import (
	"unicode/utf8"
)

// NodeText is b decoded as node's readFile(path, "utf8") decodes it (the
// WHATWG UTF-8 decoder, which NodeExecutionEnv.readTextFile and so
// JsonlStorage.open use): valid UTF-8 as it is, and one U+FFFD for each
// maximal subpart of an ill-formed sequence. strings.ToValidUTF8 writes one
// U+FFFD per run of bad bytes and utf8.DecodeRune one per byte; node writes
// one for "\xe2\x82" before an ASCII byte and two for "\x83\xa9". The
// JSONL store reads its file through it, and a commit's ids are read the
// same way (JSUnquote), so bytes that are no UTF-8 (a raw encoded
// surrogate) read alike live and reopened.
func NodeText(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	out := make([]byte, 0, len(b)+8)
	const bad = "\uFFFD"
	for i := 0; i < len(b); {
		c := b[i]
		var need int
		lower, upper := byte(0x80), byte(0xBF)
		switch {
		case c < 0x80:
			out = append(out, c)
			i++
			continue
		case c >= 0xC2 && c <= 0xDF:
			need = 1
		case c >= 0xE0 && c <= 0xEF:
			need = 2
			if c == 0xE0 {
				lower = 0xA0
			} else if c == 0xED {
				upper = 0x9F
			}
		case c >= 0xF0 && c <= 0xF4:
			need = 3
			if c == 0xF0 {
				lower = 0x90
			} else if c == 0xF4 {
				upper = 0x8F
			}
		default:
			out = append(out, bad...)
			i++
			continue
		}
		j := i + 1
		for seen := 0; seen < need; seen++ {
			if j >= len(b) || b[j] < lower || b[j] > upper {
				break
			}
			lower, upper = 0x80, 0xBF
			j++
		}
		if j-i == need+1 {
			out = append(out, b[i:j]...)
		} else {
			// the maximal subpart b[i:j] is one U+FFFD; b[j] is decoded anew
			out = append(out, bad...)
		}
		i = j
	}
	return string(out)
}
