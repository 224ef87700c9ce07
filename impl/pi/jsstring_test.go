package pi

import (
	"testing"

	"github.com/stretchr/testify/require"
)

const (
	hiD83D = "\xed\xa0\xbd" // lone U+D83D in WTF-8
	loDE00 = "\xed\xb8\x80" // lone U+DE00 in WTF-8
	grin   = "😀"            // U+1F600 = D83D DE00
)

func TestUTF16Len(t *testing.T) {
	require.Equal(t, 0, UTF16Len(""))
	require.Equal(t, 3, UTF16Len("abc"))
	require.Equal(t, 1, UTF16Len("é"))
	require.Equal(t, 1, UTF16Len("€"))
	require.Equal(t, 2, UTF16Len(grin))
	require.Equal(t, 1, UTF16Len(hiD83D))
	require.Equal(t, 4, UTF16Len("a"+grin+"b"))
}

func TestSliceUTF16SplitsPairs(t *testing.T) {
	s := "a" + grin + "b"
	require.Equal(t, s, SliceUTF16(s, 0))
	require.Equal(t, grin+"b", SliceUTF16(s, 1))
	require.Equal(t, loDE00+"b", SliceUTF16(s, 2))
	require.Equal(t, "b", SliceUTF16(s, 3))
	require.Equal(t, "", SliceUTF16(s, 4))
	require.Equal(t, "", SliceUTF16(s, 9))
}

func TestConcatJoinsSurrogates(t *testing.T) {
	require.Equal(t, "x"+grin+"y", Concat("x"+hiD83D, loDE00+"y"))
	require.Equal(t, hiD83D+hiD83D, Concat(hiD83D, hiD83D))
	require.Equal(t, loDE00+hiD83D, Concat(loDE00, hiD83D))
	require.Equal(t, "ab", Concat("a", "b"))
	require.Equal(t, 2, UTF16Len(Concat(hiD83D, loDE00)))
}

func TestNormalizeAndUTF16RoundTrip(t *testing.T) {
	require.Equal(t, grin, Normalize(hiD83D+loDE00))
	require.Equal(t, "a\uFFFDb", Normalize("a\xffb"))
	for _, s := range []string{"", "abc", grin, hiD83D, loDE00, loDE00 + hiD83D, "é€" + grin + hiD83D} {
		require.Equal(t, s, FromUTF16(ToUTF16(s)), "%q", s)
	}
	require.Equal(t, []uint16{0xD83D, 0xDE00}, ToUTF16(grin))
	require.Equal(t, grin, FromUTF16([]uint16{0xD83D, 0xDE00}))
}

func TestHasPrefixUTF16(t *testing.T) {
	require.True(t, HasPrefixUTF16(grin+"x", hiD83D))
	require.True(t, HasPrefixUTF16("abc", "ab"))
	require.False(t, HasPrefixUTF16("abc", "b"))
	require.False(t, HasPrefixUTF16(hiD83D, grin))
	require.True(t, HasPrefixUTF16("a"+grin, "a"+hiD83D))
}

func TestQuoteLikeJSONStringify(t *testing.T) {
	cases := map[string]string{
		"":                 `""`,
		"plain":            `"plain"`,
		"q\"b\\":           `"q\"b\\"`,
		"\b\f\n\r\t":       `"\b\f\n\r\t"`,
		"\x00\x01\x1f\x7f": "\"\\u0000\\u0001\\u001f\x7f\"",
		"<>&\u2028\u2029":  "\"<>&\u2028\u2029\"",
		grin:               `"` + grin + `"`,
		hiD83D:             `"\ud83d"`,
		loDE00 + "x":       `"\ude00x"`,
		"é":                `"é"`,
		"/":                `"/"`,
	}
	for in, want := range cases {
		require.Equal(t, want, QuoteJSON(in), "%q", in)
	}
}

// UTF16Len's fast path (valid UTF-8) and its decoding path (WTF-8 with lone
// surrogates, or stray bytes read as U+FFFD) agree with ToUTF16.
func TestUTF16LenMatchesToUTF16(t *testing.T) {
	for _, s := range []string{"", "abc", "é€日本", grin + grin, "a" + grin + "b\u2028", hiD83D + "é", "x" + loDE00 + grin,
		"a\xffb", "\xf0\x9f", "é\xe2\x82", "\xed\xa0", "\xf4\x90\x80\x80", "\xc0\xaf"} {
		require.Equal(t, len(ToUTF16(s)), UTF16Len(s), "%q", s)
	}
}
