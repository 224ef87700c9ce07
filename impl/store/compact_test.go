package store

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// compactJSON validates with json.Compact alone: it must reject exactly
// what json.Valid rejects, and keep the error message writes report.
func TestCompactJSONRejectsWhatValidRejects(t *testing.T) {
	for _, in := range []string{``, ` `, `{}`, `{"a": 1}`, `1 2`, `{"a":1}x`, `[1,]`, `"\u00"`, "\"a\tb\"", `nul`,
		` [ 1 , 2 ] `, "{\"a\":\"\xff\"}", "\x00", `1e`, `-`, `{"a" 1}`, `{"a":1`, `"x`} {
		got, err := compactJSON([]byte(in))
		if (err == nil) != json.Valid([]byte(in)) {
			t.Errorf("%q: compactJSON error %v, json.Valid %v", in, err, json.Valid([]byte(in)))
		}
		if err != nil && err.Error() != "not valid JSON" {
			t.Errorf("%q: error %q", in, err)
		}
		if err == nil && !json.Valid(got) {
			t.Errorf("%q: compacted to invalid %q", in, got)
		}
	}
}

// BenchmarkCompactJSON compacts one transcript entry.
func BenchmarkCompactJSON(b *testing.B) {
	raw := []byte(`{"type":"message","id":"e7","parentId":"e6","message":{"role":"assistant","content":[{"type":"text","text":"hello there, a longer text of some bytes"}],"usage":{"input":12,"output":34}}}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := compactJSON(raw); err != nil {
			b.Fatal(err)
		}
	}
}

// validCompact accepts only what json.Valid accepts and json.Compact leaves
// as it is, so compactJSON's copy of it is json.Compact's result: texts
// drawn from JSON's own bytes (most of them invalid), and valid JSON with
// and without space.
func TestValidCompactAcceptsOnlyCompactValidJSON(t *testing.T) {
	check := func(t *rapid.T, in []byte) {
		if !validCompact(in) {
			return
		}
		if !json.Valid(in) {
			t.Fatalf("%q: accepted, json.Valid rejects it", in)
		}
		var buf bytes.Buffer
		if err := json.Compact(&buf, in); err != nil || !bytes.Equal(buf.Bytes(), in) {
			t.Fatalf("%q: accepted, json.Compact gives %q, %v", in, buf.Bytes(), err)
		}
	}
	alphabet := []string{"{", "}", "[", "]", ",", ":", `"`, `\`, "u", "0", "1", "9", "-", "+", ".", "e", "E",
		"a", "F", "t", "true", "false", "null", "nul", " ", "\t", "\n", "\x01", "\x1f", "\x7f", "\xff", "é", `\"`, `\u00e9`, `\/`, `\x`}
	rapid.Check(t, func(t *rapid.T) {
		parts := rapid.SliceOfN(rapid.SampledFrom(alphabet), 0, 24).Draw(t, "parts")
		check(t, []byte(strings.Join(parts, "")))
	})
	rapid.Check(t, func(t *rapid.T) {
		v := genJSONValue(t, 0)
		compact, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if !validCompact(compact) {
			t.Fatalf("%q: json.Marshal's output turned down", compact)
		}
		check(t, compact)
		indented, _ := json.MarshalIndent(v, "", " ")
		check(t, indented)
		// one byte changed, dropped or doubled
		if len(compact) > 0 {
			i := rapid.IntRange(0, len(compact)-1).Draw(t, "at")
			b := []byte(rapid.SampledFrom(alphabet).Draw(t, "byte"))
			check(t, append(append(append([]byte(nil), compact[:i]...), b...), compact[i+1:]...))
			check(t, append(append([]byte(nil), compact[:i]...), compact[i+1:]...))
			check(t, append(append([]byte(nil), compact[:i+1]...), compact[i:]...))
		}
	})
	deep := strings.Repeat("[", maxCompactDepth+1) + strings.Repeat("]", maxCompactDepth+1)
	if validCompact([]byte(deep)) {
		t.Errorf("nesting deeper than maxCompactDepth accepted")
	}
	if got, err := compactJSON([]byte(deep)); err != nil || string(got) != deep {
		t.Errorf("deep nesting: %q, %v", got, err)
	}
}

func genJSONValue(t *rapid.T, depth int) any {
	kind := rapid.IntRange(0, 6).Draw(t, "kind")
	if depth > 3 {
		kind %= 4
	}
	switch kind {
	case 0:
		return nil
	case 1:
		return rapid.Bool().Draw(t, "b")
	case 2:
		return rapid.Float64().Draw(t, "n")
	case 3:
		return rapid.String().Draw(t, "s")
	case 4:
		return rapid.Int64().Draw(t, "i")
	case 5:
		n := rapid.IntRange(0, 3).Draw(t, "len")
		a := make([]any, n)
		for i := range a {
			a[i] = genJSONValue(t, depth+1)
		}
		return a
	default:
		n := rapid.IntRange(0, 3).Draw(t, "len")
		m := map[string]any{}
		for range n {
			m[rapid.String().Draw(t, "k")] = genJSONValue(t, depth+1)
		}
		return m
	}
}
