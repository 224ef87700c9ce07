package store

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"pgregory.net/rapid"
)

// refSplitRow is rowFields' test before splitRow: walkCompactObject with
// a member function that takes plain, unrepeated keys.
func refSplitRow(b []byte) ([]ObjectField, bool) {
	var fields []ObjectField
	var seen KeySet
	plain, repeated := true, false
	ok := walkCompactObject(b, func(key, value []byte) {
		inner := key[1 : len(key)-1]
		for _, c := range inner {
			if c == '\\' || c >= utf8.RuneSelf {
				plain = false
				return
			}
		}
		k := internKey(inner)
		repeated = repeated || seen.Add(k)
		fields = append(fields, ObjectField{Key: k, Value: value})
	})
	return fields, ok && plain && !repeated
}

// rowText draws a row as writers commit it, or nearly: an object of
// jsonText members, long strings among them (past the word-at-a-time
// start of rowStringEnd, with a quote, a backslash, a control or a
// non-ASCII byte somewhere in them), nesting near maxCompactDepth, and
// then perhaps one byte changed, dropped or doubled.
func rowText(t *rapid.T) []byte {
	long := func() string {
		n := rapid.IntRange(0, 300).Draw(t, "run")
		s := []byte(strings.Repeat("x", n))
		if n > 0 && rapid.Bool().Draw(t, "odd") {
			s[rapid.IntRange(0, n-1).Draw(t, "at")] = rapid.SampledFrom([]byte{'"', '\\', '\n', 0x1f, 0x7f, 0xff, ' ', 'n'}).Draw(t, "byte")
		}
		return `"` + string(s) + `"`
	}
	var parts []string
	for i := range rapid.IntRange(0, 6).Draw(t, "members") {
		key := rapid.SampledFrom([]string{`"id"`, `"parentId"`, `"type"`, `"message"`, `"a"`, `"é"`, `"k\"q"`, `"0"`, `""`}).Draw(t, "key")
		var v string
		switch rapid.IntRange(0, 4).Draw(t, "value") {
		case 0:
			v = long()
		case 1:
			v = `{"content":[{"type":"text","text":` + long() + `}],"n":` + rapid.SampledFrom([]string{"1", "-0.5e3", "01", "1.", "tru", "null"}).Draw(t, "n") + `}`
		case 2:
			d := rapid.IntRange(maxCompactDepth-3, maxCompactDepth+1).Draw(t, "depth")
			var open, closing strings.Builder
			for range d { // arrays and objects, mixed
				if rapid.IntRange(0, 7).Draw(t, "object") == 0 {
					open.WriteString(`{"a":`)
					closing.WriteString("}")
				} else {
					open.WriteString("[")
					closing.WriteString("]")
				}
			}
			c := []byte(closing.String())
			slices.Reverse(c)
			v = open.String() + "1" + string(c)
		default:
			v = jsonText(t, 3)
		}
		if i == 0 && rapid.Bool().Draw(t, "space") {
			v = " " + v
		}
		parts = append(parts, key+":"+v)
	}
	b := []byte("{" + strings.Join(parts, ",") + "}")
	if rapid.Bool().Draw(t, "mutate") {
		i := rapid.IntRange(0, len(b)-1).Draw(t, "at")
		c := rapid.SampledFrom([]string{"", "{", "}", "[", "]", ",", ":", `"`, `\`, " ", "\x01", "\xff", "0", "e", "u"}).Draw(t, "with")
		switch rapid.IntRange(0, 4).Draw(t, "how") {
		case 4: // a container closed by the other kind's bracket
			if j := bytes.LastIndexAny(b[:i+1], "]}"); j > 0 && j < len(b)-1 {
				b[j] ^= ']' ^ '}'
			}
		case 3:
			b = append(b, c...) // after the row
		case 0:
			b = append(append(append([]byte(nil), b[:i]...), c...), b[i+1:]...)
		case 1:
			b = append(append([]byte(nil), b[:i]...), b[i+1:]...)
		default:
			b = append(append([]byte(nil), b[:i+1]...), b[i:]...)
		}
	}
	return b
}

// splitRow takes exactly the rows walkCompactObject takes with plain,
// unrepeated keys, and splits them alike; each one it takes is valid and
// compact as encoding/json sees it (json.Valid, and json.Compact leaves
// it as it is); and it turns down no compact object of plain, unrepeated
// keys that json.Valid accepts, but for nesting past maxCompactDepth.
func TestSplitRowIsTheValidatingWalk(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		for range 20 { // rows a check: the default checks are few for this
			checkSplitRow(t)
		}
	})
	// the converse, against encoding/json itself: compact valid objects of
	// plain keys, drawn from Go values
	rapid.Check(t, func(t *rapid.T) {
		m := map[string]any{}
		for range rapid.IntRange(0, 5).Draw(t, "members") {
			m[rapid.StringMatching(`[a-zA-Z0-9_]{0,12}`).Draw(t, "key")] = genJSONValue(t, 0)
		}
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		if got, ok := splitRow(nil, b); !ok || len(got) != len(m) {
			t.Fatalf("%q: turned down (%v) or split into %d members", b, ok, len(got))
		}
	})
}

// a few rows the draws reach only now and then
var splitRowCases = []string{
	`{}`, `{}}`, `{"a":{"b":1]}`, `{"a":[1}}`, `{"a":[{"b":[]}]}`, `{"a":[{"b":[}]}`, `{"a":1}}`, `{"a":1,}`,
	`{"a":{}}`, `{"a":[]}`, `{"a":[[]],"b":{"c":{}}}`, `{"a":"` + strings.Repeat("y", 40) + `\n"}`,
	`{"a":"` + strings.Repeat("y", 40) + "\x01\"}", `{"a":1`, `{"a":"x"`, `{"a":[1]`, `{"a"`, `{"a":`,
}

func TestSplitRowCases(t *testing.T) {
	cases := splitRowCases
	for n := range 80 { // literals ending in each byte of the words tested, near the row's end and not
		for _, c := range []string{`"` + strings.Repeat("y", n) + `"`, `"` + strings.Repeat("y", n) + `\n"`, `"` + strings.Repeat("y", n) + "\x01\""} {
			cases = append(cases, `{"a":`+c+`}`, `{"a":[`+c+`]}`, `{`+c+`:1,"b":"`+strings.Repeat("z", 40)+`"}`)
		}
	}
	for _, c := range cases {
		if err := sameSplit([]byte(c)); err != "" {
			t.Error(err)
		}
	}
}

func checkSplitRow(t *rapid.T) {
	var b []byte
	if rapid.IntRange(0, 3).Draw(t, "shape") == 0 {
		b = []byte(jsonText(t, 4))
	} else {
		b = rowText(t)
	}
	if err := sameSplit(b); err != "" {
		t.Fatal(err)
	}
	if _, ok := splitRow(nil, b); !ok {
		return
	}
	var buf bytes.Buffer
	if !json.Valid(b) || json.Compact(&buf, b) != nil || !bytes.Equal(buf.Bytes(), b) {
		t.Fatalf("%q: taken, but encoding/json finds it invalid or not compact", b)
	}
}

// sameSplit is what differs between splitRow and refSplitRow on b, or "".
func sameSplit(b []byte) string {
	b = b[:len(b):len(b)] // nothing past the row to read
	got, ok := splitRow(nil, b)
	want, wantOK := refSplitRow(b)
	if ok != wantOK {
		return fmt.Sprintf("%q: splitRow %v, the walk %v", b, ok, wantOK)
	}
	if !ok {
		return ""
	}
	if len(got) != len(want) {
		return fmt.Sprintf("%q: %d members, the walk %d", b, len(got), len(want))
	}
	for i := range got {
		if got[i].Key != want[i].Key || !bytes.Equal(got[i].Value, want[i].Value) {
			return fmt.Sprintf("%q: member %d is %q:%q, the walk's %q:%q", b, i, got[i].Key, got[i].Value, want[i].Key, want[i].Value)
		}
	}
	return ""
}
