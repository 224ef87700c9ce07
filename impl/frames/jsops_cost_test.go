package frames

import (
	"math"
	"strconv"
	"testing"
	"unicode/utf8"

	"github.com/frameproof/frameproof/impl/pi"
	"pgregory.net/rapid"
)

// nonStringDeltaLines is a stored frame list of one text block followed by
// n delta frames whose delta is not a string (missing, a number, null, an
// array, an object), every other one a plain string when mixed: pi-ai
// appends String(delta) for each, so recovery must stay linear in n.
func nonStringDeltaLines(n int, mixed bool) [][]byte {
	deltas := []string{``, `,"delta":7`, `,"delta":null`, `,"delta":[1,[2,"x"]]`, `,"delta":{"a":1}`, `,"delta":-0.5`, `,"delta":true`}
	lines := [][]byte{
		[]byte(`{"type":"start","partial":` + testPartial + `}`),
		[]byte(`{"type":"text_start","contentIndex":0,"content":{"type":"text","text":""}}`),
	}
	for i := range n {
		d := deltas[i%len(deltas)]
		if mixed && i%2 == 1 {
			d = `,"delta":"ab` + strconv.Itoa(i%10) + `"`
		}
		lines = append(lines, []byte(`{"type":"text_delta","contentIndex":0`+d+`}`))
	}
	return lines
}

// BenchmarkNonStringDeltas shows the cost of a block's non-string deltas
// per frame: it stays flat from 1k to 16k frames when add is linear.
func BenchmarkNonStringDeltas(b *testing.B) {
	for _, mixed := range []bool{false, true} {
		for _, n := range []int{1 << 10, 4 << 10, 16 << 10} {
			lines := nonStringDeltaLines(n, mixed)
			name := strconv.Itoa(n>>10) + "k"
			if mixed {
				name = "mixed/" + name
			}
			b.Run("json/"+name, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := ReduceJSON(lines); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/frame")
			})
			b.Run("write/"+name, func(b *testing.B) {
				b.ReportAllocs()
				loopAppendReduced(b, lines)
			})
		}
	}
}

// oldAdd is jsAccum.add as it was before non-string deltas appended in
// place: the general JS addition on the whole value, which the new add
// must match value for value.
func oldAdd(a *jsAccum, delta pi.JSONValue) {
	if a.isStr && delta.Kind() == pi.String {
		if a.esc && utf8.ValidString(delta.Str()) {
			a.buf = appendBody(a.buf, delta.Str())
			return
		}
		a.unescape()
		a.buf = appendJS(a.buf, delta.Str())
		return
	}
	sum, err := jsAdd(a.value(), delta)
	if err != nil {
		panic(err)
	}
	*a = accumOf(sum)
}

// genJSString is a short string of UTF-16 units that include halves of a
// surrogate pair, alone or split across two strings, and JSON escapes.
func genJSString(t *rapid.T, label string) string {
	units := []uint16{'a', '"', '\\', '\n', 0xE9, 0xD83D, 0xDE00, 0xDC00, 0xDBFF}
	u := rapid.SliceOfN(rapid.SampledFrom(units), 0, 4).Draw(t, label)
	return pi.FromUTF16(u)
}

// genNumber is a NaN-free float64 whose String() takes each of
// Number::toString's forms: -0, integers, fractions, exponents, infinities.
func genNumber(t *rapid.T, label string) float64 {
	return rapid.OneOf(
		rapid.SampledFrom([]float64{0, math.Copysign(0, -1), 1, -7, 0.5, 1e21, -1e-7, 123456789012345680000, math.Inf(1), math.Inf(-1)}),
		rapid.Float64().Filter(func(f float64) bool { return !math.IsNaN(f) }),
	).Draw(t, label)
}

// genAddValue is any value a stored frame may hold where a delta or a
// block's text is: the JSON kinds and undefined, arrays and objects nested
// up to depth.
func genAddValue(t *rapid.T, depth int) pi.JSONValue {
	kinds := 6
	if depth > 0 {
		kinds = 8
	}
	switch rapid.IntRange(0, kinds-1).Draw(t, "kind") {
	case 0:
		return pi.JSONValue{}
	case 1:
		return pi.NullValue()
	case 2:
		return pi.BoolValue(rapid.Bool().Draw(t, "bool"))
	case 3:
		return pi.NumberValue(genNumber(t, "number"))
	case 4, 5:
		return pi.StringValue(genJSString(t, "string"))
	case 6:
		var elems []pi.JSONValue
		for range rapid.IntRange(0, 3).Draw(t, "len") {
			elems = append(elems, genAddValue(t, depth-1))
		}
		return pi.ArrayValue(elems)
	}
	o := pi.NewObject()
	for range rapid.IntRange(0, 2).Draw(t, "len") {
		o.Set(genJSString(t, "key"), genAddValue(t, depth-1))
	}
	return pi.ObjectValue(o)
}

// TestAddMatchesJSAdd checks that add's in-place appending of non-string
// deltas gives, after every step, the value the general JS addition gave,
// from any starting value, with the reducer's turns into body form between.
func TestAddMatchesJSAdd(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		start := genAddValue(t, 2)
		got, want := accumOf(start), accumOf(start)
		var spareGot, spareWant [][]byte
		for step := range rapid.IntRange(1, 12).Draw(t, "steps") {
			if rapid.IntRange(0, 3).Draw(t, "escape") == 0 {
				got.escape(&spareGot)
				want.escape(&spareWant)
			}
			delta := genAddValue(t, 2)
			got.add(delta)
			oldAdd(&want, delta)
			g, w := got.value(), want.value()
			if !g.Equal(w) || string(g.AppendJSON(nil)) != string(w.AppendJSON(nil)) {
				t.Fatalf("step %d: %s + %s: got %q, want %q", step, start.AppendJSON(nil), delta.AppendJSON(nil), g.AppendJSON(nil), w.AppendJSON(nil))
			}
		}
	})
}

// TestNonStringDeltasKeepBodyForm checks the benchmark's lists, whose
// non-string deltas now append to a block's JSON body in place, against
// the value path that never keeps a body.
func TestNonStringDeltasKeepBodyForm(t *testing.T) {
	for _, mixed := range []bool{false, true} {
		lines := nonStringDeltaLines(50, mixed)
		want := exactOutcome(lines)
		if got := writeOutcome(lines); got != want {
			t.Errorf("mixed %v: AppendReducedJSON gives %s, want %s", mixed, got, want)
		}
		if got := reduceJSONOutcome(lines); got != want {
			t.Errorf("mixed %v: ReduceJSON gives %s, want %s", mixed, got, want)
		}
	}
}

// A lone high surrogate ending the text and a non-string delta whose
// String starts with the low one join into one character, as JS's `+=`
// joins the UTF-16 units, in the value form and in the body form.
func TestAddJoinsSplitPairThroughNonStringDelta(t *testing.T) {
	const hi, lo = "\xed\xa0\xbd", "\xed\xb8\x80" // U+D83D, U+DE00 in WTF-8
	for _, escaped := range []bool{false, true} {
		a := accumOf(pi.StringValue("x" + hi))
		if escaped {
			var spare [][]byte
			a.escape(&spare)
		}
		a.add(pi.ArrayValue([]pi.JSONValue{pi.StringValue(lo), pi.NumberValue(1)}))
		if got := a.value(); got.Str() != "x😀,1" {
			t.Errorf("escaped %v: got %q, want %q", escaped, got.Str(), "x😀,1")
		}
	}
}
