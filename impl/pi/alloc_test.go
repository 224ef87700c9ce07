package pi

import (
	"testing"
	"unsafe"
)

// The parser's allocation counts and the value's size, which the simulator
// and recovery pay per parsed value (docs/SIMULATOR-SPEED.md): a JSONValue
// is 40 bytes since an array keeps its elements in its holder's vals, an
// object of up to 8 members is one allocation (newSizedObject), and every
// parsed [] shares one holder (emptyArray). A change that adds an
// allocation to one of these shapes fails here.
func TestParseJSONAllocations(t *testing.T) {
	if raceEnabled {
		// CI's plain `go test ./...` runs this test; the -race pass cannot.
		t.Skip("allocation counts depend on sync.Pool, which -race drops from at random")
	}
	if got := unsafe.Sizeof(JSONValue{}); got != 40 {
		t.Errorf("JSONValue is %d bytes, want 40", got)
	}
	for _, tc := range []struct {
		in     string
		allocs float64
	}{
		{`[]`, 0},
		{`[[],[],[]]`, 1}, // the outer holder with its elements
		// one array per size class of newArrayOf
		{`[1]`, 1},
		{`[1,2]`, 1},
		{`[1,2,3]`, 1},
		{`[1,2,3,4]`, 1},
		{`[1,2,3,4,5]`, 1},
		{`[1,2,3,4,5,6,7,8]`, 1},
		{`[1,2,3,4,5,6,7,8,9]`, 2},
		// one object per size class of newSizedObject: a cap written wrong
		// in any case grows the slices apart and adds an allocation
		{`{"a":1}`, 1},
		{`{"a":1,"b":2}`, 1},
		{`{"a":1,"b":"x","c":true}`, 1},
		{`{"a":1,"b":2,"c":3,"d":4}`, 1},
		{`{"a":1,"b":2,"c":3,"d":4,"e":5}`, 1},
		{`{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6}`, 1},
		{`{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7}`, 1},
		{`{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8}`, 1},
		{`{"type":"text_delta","contentIndex":0,"delta":"hi"}`, 1},
	} {
		got := testing.AllocsPerRun(100, func() {
			if _, err := ParseJSON(tc.in); err != nil {
				t.Fatal(err)
			}
		})
		if got != tc.allocs {
			t.Errorf("ParseJSON(%s): %v allocations, want %v", tc.in, got, tc.allocs)
		}
	}
}

// TestEmptyArrayValueShares: ArrayValue of an empty, non-nil slice shares
// the parser's holder of [] (no allocation) and is what ParseJSON("[]") is;
// ArrayValue(nil) keeps its nil elements.
func TestEmptyArrayValueShares(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts under -race")
	}
	empty := make([]JSONValue, 0, 4)
	if got := testing.AllocsPerRun(100, func() { _ = ArrayValue(empty) }); got != 0 {
		t.Errorf("ArrayValue(empty): %v allocations, want 0", got)
	}
	v, p := ArrayValue(empty), mustParseForTest(t, "[]")
	if !v.Equal(p) || v.String() != "[]" || v.Array() == nil || len(v.Array()) != 0 || cap(v.Array()) != 0 {
		t.Errorf("ArrayValue(empty) = %s (%d/%d elements), want []", v, len(v.Array()), cap(v.Array()))
	}
	if n := ArrayValue(nil); n.Array() != nil || n.String() != "[]" {
		t.Errorf("ArrayValue(nil) = %s with elements %v, want [] with nil elements", n, n.Array())
	}
}

// mustParseForTest is ParseJSON that fails t on an error.
func mustParseForTest(t *testing.T, s string) JSONValue {
	t.Helper()
	v, err := ParseJSON(s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func BenchmarkParseJSONShapes(b *testing.B) {
	for _, in := range []string{`[[],[],[]]`, `{"type":"text_delta","contentIndex":0,"delta":"hi"}`,
		`{"role":"assistant","content":[{"type":"text","text":"hello"}],"usage":{"input":1,"output":2}}`} {
		b.Run(in[:min(len(in), 24)], func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := ParseJSON(in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
