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
		{`[[],[],[]]`, 2}, // the outer holder and its elements
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
