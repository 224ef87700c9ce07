package pi

import (
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
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

// JSString is JS's String(JSON.parse(text)); the expected strings were
// printed by node 20 (`String(JSON.parse(text))`): Array.prototype.join
// writes null and undefined elements as empty and objects as
// "[object Object]".
func TestJSStringLikeNode(t *testing.T) {
	for text, want := range map[string]string{
		`[1,[2,[3,null]],{},"a",true,-0,1e21,null,[]]`: "1,2,3,,[object Object],a,true,0,1e+21,,",
		`[]`:                "",
		`[null]`:            "",
		`[[],[]]`:           ",",
		`[0.1,-5e-7,"x,y"]`: "0.1,-5e-7,x,y",
		`[[[[1]]],[null]]`:  "1,",
		`{"a":1}`:           "[object Object]",
		`-0`:                "0",
		`null`:              "null",
		`false`:             "false",
		`"` + grin + `"`:    grin,
	} {
		v, err := ParseJSON(text)
		require.NoError(t, err, text)
		require.Equal(t, want, JSString(v), text)
	}
}

// concatJSString is String(v) as JSString once built it, one `+=` per
// element: the reference appendJSString is held to.
func concatJSString(v JSONValue) string {
	if v.Kind() != Array {
		return JSString(v)
	}
	out := ""
	for i, e := range v.Array() {
		if i > 0 {
			out += ","
		}
		if e.Kind() != Undefined && e.Kind() != Null {
			out += concatJSString(e)
		}
	}
	return out
}

func TestJSStringMatchesConcatenation(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		v := genNested(t, 3)
		if got, want := JSString(v), concatJSString(v); got != want {
			t.Fatalf("JSString(%s) = %q, concatenation %q", v.AppendJSON(nil), got, want)
		}
	})
}

// genNested is a value of nested arrays of every kind.
func genNested(t *rapid.T, depth int) JSONValue {
	leaves := []JSONValue{NullValue(), {}, BoolValue(true), NumberValue(-0.5), NumberValue(1e21),
		StringValue(""), StringValue("a,b"), StringValue(hiD83D), ObjectValue(NewObject())}
	if depth == 0 || rapid.IntRange(0, 2).Draw(t, "leaf") == 0 {
		return rapid.SampledFrom(leaves).Draw(t, "value")
	}
	var elems []JSONValue
	for n := rapid.IntRange(0, 4).Draw(t, "len"); n > 0; n-- {
		elems = append(elems, genNested(t, depth-1))
	}
	return ArrayValue(elems)
}

// BenchmarkJSStringArray is String(v) of a stored array of n numbers:
// linear in n (it was quadratic: 455 ms at 20k elements, 5.4 s at 80k).
func BenchmarkJSStringArray(b *testing.B) {
	for _, n := range []int{1000, 10000, 100000} {
		elems := make([]JSONValue, n)
		for i := range elems {
			elems[i] = NumberValue(1)
		}
		v := ArrayValue(elems)
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			for b.Loop() {
				JSString(v)
			}
		})
	}
}
