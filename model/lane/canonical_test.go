package lane

import (
	"testing"

	"github.com/frameproof/frameproof/impl/pi"
	"pgregory.net/rapid"
)

// canonicalByParse is Canonical without the isCanonical shortcut: the
// parse and serialization every text took before.
func canonicalByParse(raw []byte) string {
	v, err := pi.ParseJSON(string(raw))
	if err != nil {
		return string(raw)
	}
	return jsonText(v)
}

// drawJSON is a random value: any strings and numbers, keys that are
// integer-like, repeated (Set keeps one) or plain, nesting.
func drawJSON(t *rapid.T, depth int) pi.JSONValue {
	kind := rapid.IntRange(0, 6).Draw(t, "kind")
	if depth > 3 && kind >= 5 {
		kind = 0
	}
	switch kind {
	case 0:
		return pi.NullValue()
	case 1:
		return pi.BoolValue(rapid.Bool().Draw(t, "b"))
	case 2:
		return pi.NumberValue(drawNumber(t, "n"))
	case 3, 4:
		return pi.StringValue(drawText(t, "s"))
	case 5:
		var a []pi.JSONValue
		for range rapid.IntRange(0, 4).Draw(t, "len") {
			a = append(a, drawJSON(t, depth+1))
		}
		return pi.ArrayValue(a)
	}
	o := pi.NewObject()
	for range rapid.IntRange(0, 5).Draw(t, "members") {
		key := rapid.OneOf(rapid.SampledFrom([]string{"a", "b", "0", "7", "01", "-1", "4294967295", "", "é"}),
			rapid.Custom(func(t *rapid.T) string { return drawText(t, "key") })).Draw(t, "key")
		o.Set(key, drawJSON(t, depth+1))
	}
	return pi.ObjectValue(o)
}

// TestCanonicalMatchesParse: Canonical, shortcut and all, gives what the
// parse and serialization give, for serialized values (mostly already
// canonical), the same texts edited (whitespace, other escapes and number
// forms, repeated keys, any byte) and any text.
func TestCanonicalMatchesParse(t *testing.T) {
	edits := []string{" ", "\n", `\/`, `\u0041`, `\u001F`, `\u00e9`, `\ud800`, "1.0", "-0", "1E5", "1e+21", "0.1", "-1.5e-7",
		"00", "1e400", "12345678901234567", `\u0008`, "\x1f", `{"a":1,"a":2}`, `{"1":0,"a":1}`, `"\x01"`, "\xff", "\xed\xa0\x80", ",", "]", "}", `"`, `\`, "true", "nul"}
	rapid.Check(t, func(t *rapid.T) {
		var text string
		switch rapid.IntRange(0, 3).Draw(t, "source") {
		case 0, 1:
			text = jsonText(drawJSON(t, 0))
		case 2:
			text = jsonText(drawJSON(t, 0))
			for range rapid.IntRange(1, 3).Draw(t, "edits") {
				at := rapid.IntRange(0, len(text)).Draw(t, "at")
				cut := rapid.IntRange(0, min(3, len(text)-at)).Draw(t, "cut")
				text = text[:at] + rapid.SampledFrom(edits).Draw(t, "edit") + text[at+cut:]
			}
		default:
			text = drawText(t, "text")
		}
		if got, want := Canonical([]byte(text)), canonicalByParse([]byte(text)); got != want {
			t.Fatalf("Canonical(%q) = %q, the parse gives %q", text, got, want)
		}
	})
}

// The shortcut answers for the forms frames and messages take, and leaves
// every other form to the parse.
func TestIsCanonical(t *testing.T) {
	for _, s := range []string{`{"type":"text_delta","delta":"x\n\u0001é\"\\","n":[1,-2.5,0,1e+21,1.5e-7,1234567890123456,12345678901234567000],"t":true,"f":false,"z":null,"o":{},"a":[]}`,
		`"s"`, `0`, `-1`, `[{"a":{"b":[]}}]`} {
		if !isCanonical(s) || Canonical([]byte(s)) != canonicalByParse([]byte(s)) {
			t.Errorf("%s: not taken as canonical", s)
		}
	}
	for _, s := range []string{` 1`, `1 `, `{"a" :1}`, `[1, 2]`, `"\/"`, `"\u0041"`, `"\u000a"`, `"\u001F"`, `"\u0008"`, "\"\x1f\"", `12345678901234567`, `-0`, `1.0`, `1E5`, `01`,
		`{"1":0}`, `{"a":1,"a":2}`, "\"\x01\"", "\"\xff\"", "\"\xed\xa0\x80\"", `1e400`, `[`, `{"a":1`, `tru`, `"`, ``} {
		if isCanonical(s) {
			t.Errorf("%q taken as canonical", s)
		}
	}
}
