package frames

import (
	"testing"

	"github.com/frameproof/frameproof/impl/pi"
)

// pi-ai utils/json-parse.js parseStreamingJson: results printed by pi-ai
// 1.0.3 under node for these inputs (props/codec compares thousands more
// against the running peer).
func TestParseStreamingJSONPins(t *testing.T) {
	cases := []struct{ in, want string }{
		{"", "{}"},
		{"nu", "{}"}, // null from partial-json becomes {}
		{"null", "null"},
		{"[1e", "[1]"},
		{`{"n":-12.`, "{}"},          // the retry cuts at the text's last "e": there is none
		{`{"a":"b\\`, `{"a":"b\\"}`}, // an escaped backslash is kept
		{`{"p":"C:\q`, `{"p":"C:"}`}, // "\q" is no escape: cut at the last backslash
		{`{"p":"C:\\q`, `{"p":"C:\\q"}`},
		{`["\ud83d`, `["\ud83d"]`},
		{`{"a":[1,{"b":tr`, `{"a":[1,{"b":true}]}`},
		{"{\"a\":\"x\ny", "{}"}, // raw newline: cut at the last backslash, of which there is none
		{"[ ]", "[]"},
		{`{"a"é"x"}`, `{"a":"x"}`}, // any one character stands for the colon
		{`{"a"😀1}`, "{}"},          // ... but only one UTF-16 unit of an astral one
		{`[{"a"😀1},2]`, "[{}]"},
		{`{"__proto__":null,"__proto__":5`, `{"__proto__":5}`},
		{`{"__proto__":[],"__proto__":1,"c":2}`, `{"__proto__":1,"c":2}`}, // complete: JSON.parse
		{`{"__proto__":{"x":1},"y":2`, `{"y":2}`},
	}
	for _, c := range cases {
		if got := ParseStreamingJSON(pi.Normalize(c.in)).String(); got != c.want {
			t.Errorf("ParseStreamingJSON(%q) = %s, want %s", c.in, got, c.want)
		}
	}
}
