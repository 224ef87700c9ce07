package main

import (
	"fmt"

	"github.com/frameproof/frameproof/impl/pi"
	"pgregory.net/rapid"
)

// parseInputs are aimed at parseStreamingJson's layers: JSON.parse (any
// value, not only objects), repairJson, partial-json 0.1.7 and the final
// `{}` fallback.
var parseInputs = []struct{ in, why string }{
	{"", "empty input is {}"}, {" \t\n", "blank input is {}"}, {"\u00a0", "NBSP is JS whitespace: {}"}, {"\ufeff", "BOM is JS whitespace"},
	{"null", "JSON.parse(\"null\") is null, not {}"}, {"nu", "partial null"}, {"[nu", "partial null inside an array"}, {"{\"a\":nu", "partial null member"},
	{"5", "a number result"}, {"-", "a lone minus"}, {"1.", "a trailing dot"}, {"12.", "12. falls back to {}"}, {"1e", "dangling exponent"}, {"-1.5e-", "dangling signed exponent"},
	{"01", "leading zero"}, {"[1.", "partial number in array"}, {"1e999", "overflow to Infinity, printed null"}, {"[0,-0,1e400,-1e400]", "-0 and infinities"},
	{"NaN", "partial-json accepts NaN"}, {"Infinity", "partial-json accepts Infinity"}, {"-Inf", "partial -Infinity"}, {"[NaN, Infinity, -Infinity]", "non-finite in array"},
	{"true", "boolean"}, {"tru", "partial true is true"}, {"fals", "partial false"}, {"[tru]", "bad literal inside array"},
	{"\"abc", "unterminated string is the string"}, {"\"abc\\", "string ending in a backslash"}, {"\"a\\qb\"", "invalid escape"}, {"\"a\nb\"", "raw newline in a string (repair)"},
	{"{\"a\":\"x\ty\"}", "raw tab in a string (repair)"}, {"\"\\u12\"", "short unicode escape"}, {"{\"a\":\"\\u00zz\"}", "bad unicode escape"},
	{"{\"a\":\"\\ud83d", "escaped high surrogate, cut"}, {"{\"a\":\"\\ud83d\\ude00\"}", "escaped pair"}, {"[\"\\ud83d\"", "escaped lone surrogate"},
	{"abc", "bare word falls back to {}"}, {"[1,2", "partial array is the array"}, {"[1 2]", "missing comma"}, {"[,", "leading comma"}, {"[1,,2]", "double comma"},
	{"{", "open object"}, {"{\"", "open key"}, {"{\"a", "partial key"}, {"{\"a\"", "key without colon"}, {"{\"a\":", "key without value"},
	{"{\"a\":\"b", "partial string value"}, {"{\"a\":1", "partial object"}, {"{\"a\":1,", "trailing comma"}, {"{\"a\":1,\"", "trailing open key"},
	{"{a:1}", "unquoted key"}, {"{'a':1}", "single quotes"}, {"{\"a\"::1}", "double colon"}, {"{1:2}", "numeric key"},
	{"{\"1\":1,\"b\":2,\"0\":3}", "integer-like keys reorder"}, {"{\"a\":1,\"a\":2}", "duplicate key: last wins, first position"},
	{"{\"__proto__\":{\"x\":1},\"y\":2", "__proto__ is an own key after JSON.parse"}, {"{\"__proto__\":5,\"z\":1", "__proto__ in partial-json"},
	{"[[[", "nested open arrays"}, {"{\"a\":{\"b\":{\"c\":[1,2,{\"d\":", "deep partial"}, {"{\"a\":1} xyz", "trailing garbage"}, {"[1] 2", "two values"},
	{"{\"a\":\"\\\"", "escaped quote at the end"}, {"{\"a\":tr", "partial literal member"}, {"{\"a\":1 \"b\":2}", "missing comma between members"},
	{"\\", "lone backslash"}, {"{\"a\":\"😀", "astral in partial string"}, {"[\"é", "non-ASCII partial"}, {"{\"\x01\":1}", "raw control in key"},
	{"{\"a\":[] ,", "space before trailing comma"}, {"{\"a\" : [ 1 , ", "spaces everywhere"}, {"{\"a\":Infinity}", "Infinity member"}, {"{\"a\":-}", "lone minus member"},
	{"{\"a\":1e}", "dangling exponent member"}, {"\"\\\\\"", "escaped backslash string"}, {"[\"a\"\"b\"]", "adjacent strings"},
}

func (g *gen) parse() {
	for i, c := range parseInputs {
		g.add("parse-edge.jsonl", g.parseVector(fmt.Sprintf("parse/edge-%03d", i), "hand-picked: "+c.why, c.in))
	}
	// Lone surrogates cannot be written in a Go string literal above.
	g.add("parse-edge.jsonl", g.parseVector("parse/edge-lone-high", "hand-picked: raw lone high surrogate in a string", "[\""+units(0xD83D)))
	g.add("parse-edge.jsonl", g.parseVector("parse/edge-lone-low-key", "hand-picked: raw lone low surrogate in a key", "{\""+units(0xDC00)+"\":1"))
	gen := rapid.Custom(genStreamingInput)
	for seed := 0; seed < 40; seed++ {
		g.add("parse-generated.jsonl", g.parseVector(fmt.Sprintf("parse/cut-seed-%04d", seed),
			fmt.Sprintf("vecgen genStreamingInput seed %d: a JSON document cut at a code unit, maybe damaged", seed), gen.Example(seed)))
	}
}

// genStreamingInput is a JSON document (built from props/codec's tool
// argument pieces) cut at a random code unit and maybe damaged.
func genStreamingInput(t *rapid.T) string {
	doc := pi.ToUTF16(genDoc(t, 0))
	cut := rapid.IntRange(0, len(doc)).Draw(t, "cut")
	u := append([]uint16(nil), doc[:cut]...)
	if len(u) > 0 && rapid.IntRange(0, 3).Draw(t, "damage") == 0 {
		i := rapid.IntRange(0, len(u)-1).Draw(t, "at")
		u[i] = uint16(rapid.SampledFrom([]rune{'\\', '"', '\n', 'x', '}', ']', ',', 0xD83D, 'e', '-'}).Draw(t, "with"))
	}
	return pi.FromUTF16(u)
}

func genDoc(t *rapid.T, depth int) string {
	kind := rapid.IntRange(0, 5).Draw(t, "kind")
	if depth > 2 && kind >= 4 {
		kind = 0
	}
	switch kind {
	case 0:
		return pi.QuoteJSON(rapid.SampledFrom([]string{"a", "é", "😀 x", "\"q\"", "b\\s", "\n", "\u0001", ""}).Draw(t, "s"))
	case 1:
		return rapid.SampledFrom([]string{"0", "-0", "1", "-12.5", "1e21", "1.5E-7", "123456789012345678901"}).Draw(t, "n")
	case 2:
		return rapid.SampledFrom([]string{"true", "false", "null"}).Draw(t, "lit")
	case 3, 4:
		n := rapid.IntRange(0, 3).Draw(t, "len")
		s := "["
		for i := 0; i < n; i++ {
			if i > 0 {
				s += ", "
			}
			s += genDoc(t, depth+1)
		}
		return s + "]"
	}
	n := rapid.IntRange(0, 3).Draw(t, "keys")
	s := "{"
	for i := 0; i < n; i++ {
		if i > 0 {
			s += ","
		}
		s += pi.QuoteJSON(rapid.SampledFrom([]string{"a", "0", "10", "01", "__proto__", "k😀"}).Draw(t, "key")) + ":" + genDoc(t, depth+1)
	}
	return s + "}"
}
