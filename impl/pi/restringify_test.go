package pi

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// restringifyText draws JSON text and near-JSON text: strings with escapes,
// surrogates (paired, lone, escaped and raw), U+2028 and invalid UTF-8;
// integer-like, repeated and escaped-equal keys; numbers that overflow, lose
// precision or are -0; space between tokens, and now and then a broken
// token.
func restringifyText(t *rapid.T, depth int) string {
	sp := rapid.SampledFrom([]string{"", " ", "\n\t\r "}).Draw(t, "space")
	str := rapid.SampledFrom([]string{`"a"`, `""`, `"b\"}"`, `"\\"`, `"\u00e9"`, `"é"`, `"\ud83d\ude00"`, `"\ud83d"`, `"\ude00x"`,
		"\"\u2028\"", `"\u2028"`, `"\n\t\u0000\u001f"`, `"x,y:]"`, "\"\xff\"", `"a\/b"`, `"\ud83d` + "\xed\xb8\x80\"", `"unterminated`}).Draw(t, "string")
	kinds := 3
	if depth > 0 {
		kinds = 5
	}
	switch rapid.IntRange(0, kinds-1).Draw(t, "kind") {
	case 0:
		return sp + str + sp
	case 1:
		return rapid.SampledFrom([]string{"0", "-0", "-1.5e+3", "1e400", "-1e400", "0.1", "1e21", "123456789012345678901234567890",
			"5e-324", "01", "1.", "-", "true", "false", "null", "nul", "tru"}).Draw(t, "literal")
	case 2:
		return sp + rapid.SampledFrom([]string{"{}", "[]", "[ ]", "{ }", "{", "]", ""}).Draw(t, "empty") + sp
	case 3:
		n := rapid.IntRange(0, 5).Draw(t, "members")
		parts := make([]string, n)
		for i := range parts {
			key := rapid.SampledFrom([]string{`"a"`, `"b"`, `"\u0061"`, `"é"`, `"k\"q"`, `"0"`, `"1"`, `"01"`, `"4294967294"`,
				`"4294967295"`, `"-1"`, `"\ud83d"`, "\"\xfe\""}).Draw(t, "key")
			parts[i] = sp + key + sp + ":" + sp + restringifyText(t, depth-1) + sp
		}
		return "{" + strings.Join(parts, ",") + "}"
	default:
		n := rapid.IntRange(0, 4).Draw(t, "elements")
		parts := make([]string, n)
		for i := range parts {
			parts[i] = sp + restringifyText(t, depth-1) + sp
		}
		return "[" + strings.Join(parts, rapid.SampledFrom([]string{",", ",", ",", ", ", ";"}).Draw(t, "comma")) + "]"
	}
}

// AppendRestringified writes what AppendJSON writes of ParseJSON's value,
// whenever it answers at all, and never answers for text ParseJSON refuses.
func TestAppendRestringifiedIsParseThenAppendJSON(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := restringifyText(t, 4)
		prefix := []byte("prefix:")
		got, ok := AppendRestringified(append([]byte(nil), prefix...), s)
		v, err := ParseJSON(s)
		if err != nil {
			require.False(t, ok, "answered %q for invalid %q", got, s)
			require.Equal(t, string(prefix), string(got))
			return
		}
		if ok {
			require.Equal(t, "prefix:"+string(v.AppendJSON(nil)), string(got), "text %q", s)
		}
	})
}

// It answers for the frames and messages the simulator renders (no
// integer-like or repeated keys).
func TestAppendRestringifiedAnswersForPlainObjects(t *testing.T) {
	for _, s := range []string{`{"type":"text_delta","contentIndex":0,"delta":"h\u00e9","partial":{"role":"assistant","content":[{"type":"text","text":"hé"}],"usage":{"input":1e0}}}`,
		`[1,"a",{"b":[]},null,true,-0]`, ` {"a" : 1 } `} {
		got, ok := AppendRestringified(nil, s)
		require.True(t, ok, s)
		v, err := ParseJSON(s)
		require.NoError(t, err)
		require.Equal(t, string(v.AppendJSON(nil)), string(got))
	}
}
