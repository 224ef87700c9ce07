package frames

import (
	"strconv"
	"testing"
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
				var buf []byte
				var s StoredReducer
				for b.Loop() {
					var err error
					if buf, _, err = s.AppendReducedJSON(buf[:0], lines); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/frame")
			})
		}
	}
}
