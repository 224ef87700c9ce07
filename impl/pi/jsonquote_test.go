package pi

import (
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// plainRule is the one-byte rule plainWord applies to eight bytes at once.
func plainRule(b byte) bool { return b >= 0x20 && b < utf8.RuneSelf && b != '"' && b != '\\' }

// Every byte value, at every position of an otherwise plain word, decides
// the word alone; and so do random words.
func TestPlainWordMatchesByteRule(t *testing.T) {
	for pos := 0; pos < 8; pos++ {
		for b := 0; b < 256; b++ {
			w := []byte("abcdefgh")
			w[pos] = byte(b)
			require.Equal(t, plainRule(byte(b)), plainWord(loadWord(string(w))), "byte %#x at %d", b, pos)
		}
	}
	rapid.Check(t, func(t *rapid.T) {
		w := rapid.SliceOfN(rapid.Byte(), 8, 8).Draw(t, "w")
		want := true
		for _, b := range w {
			want = want && plainRule(b)
		}
		require.Equal(t, want, plainWord(loadWord(string(w))), "%q", w)
	})
}

// quoteBytewise is AppendQuote's rule one unit at a time, without the
// word-at-a-time skip: the definition the fast path must agree with.
func quoteBytewise(s string) string {
	dst := []byte{'"'}
	for i := 0; i < len(s); {
		b := s[i]
		if b < utf8.RuneSelf {
			switch {
			case plainRule(b):
				dst = append(dst, b)
			case b == '"' || b == '\\':
				dst = append(dst, '\\', b)
			case b == '\b':
				dst = append(dst, `\b`...)
			case b == '\f':
				dst = append(dst, `\f`...)
			case b == '\n':
				dst = append(dst, `\n`...)
			case b == '\r':
				dst = append(dst, `\r`...)
			case b == '\t':
				dst = append(dst, `\t`...)
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xF])
			}
			i++
			continue
		}
		r, size := decodeUnit(s, i)
		switch {
		case r >= 0xD800 && r <= 0xDFFF:
			dst = append(dst, '\\', 'u', hexDigits[r>>12], hexDigits[r>>8&0xF], hexDigits[r>>4&0xF], hexDigits[r&0xF])
		case r == utf8.RuneError && size == 1:
			dst = append(dst, "\uFFFD"...)
		default:
			dst = append(dst, s[i:i+size]...)
		}
		i += size
	}
	return string(append(dst, '"'))
}

// Strings mixing long plain runs with every kind of byte AppendQuote treats
// specially, at every alignment, quote as the bytewise rule does.
func TestAppendQuoteMatchesBytewise(t *testing.T) {
	pieces := []string{"abcdefghij", "x", "\xc3", "\xc1\xbf", "\xdf\xbf", "\"", "\\", "\n", "\x00", "\x1f", "\x7f", "é", "日", grin, hiD83D, loDE00, "\xff", "\xed\xa0", "\u2028", " "}
	rapid.Check(t, func(t *rapid.T) {
		parts := rapid.SliceOf(rapid.SampledFrom(pieces)).Draw(t, "parts")
		s := ""
		for _, p := range parts {
			s += p
		}
		require.Equal(t, quoteBytewise(s), string(AppendQuote(nil, s)), "%q", s)
	})
}
