package frames

import (
	"fmt"
	"strings"
	"testing"

	"github.com/frameproof/frameproof/impl/pi"
)

// failedNumberShapes are inputs where every number fails inside a nested
// container, so the parent loop goes on to the next one: with an 'e'
// (lastE after or before the number) and without one (lastE = -1).
var failedNumberShapes = []struct{ name, open, unit string }{
	{"array-e", "[", "[-e,"},
	{"object-e", "[", `{"a":-e,`},
	{"array-noE", "[", "[-x,"},
	{"object-noE", "[", `{"a":-x,`},
}

// BenchmarkPartialParseFailedNumbers: ParseStreamingJSON of the shapes at
// 1k, 4k and 16k repetitions; ns/op should grow with the size, not with
// its square.
func BenchmarkPartialParseFailedNumbers(b *testing.B) {
	for _, shape := range failedNumberShapes {
		for _, n := range []int{1000, 4000, 16000} {
			s := shape.open + strings.Repeat(shape.unit, n)
			b.Run(fmt.Sprintf("%s/%d", shape.name, n), func(b *testing.B) {
				b.SetBytes(int64(len(s)))
				for range b.N {
					ParseStreamingJSON(s)
				}
			})
		}
	}
}

// BenchmarkReduceFailedNumbersCheckpoint: the same inputs as a stored
// toolcall_checkpoint's JSON, which the reducer recovers through
// parseStreamingJson.
func BenchmarkReduceFailedNumbersCheckpoint(b *testing.B) {
	start := `{"type":"start","partial":{"role":"assistant","content":[],"api":"a","provider":"p","model":"m","stopReason":"pending","timestamp":1}}`
	toolStart := `{"type":"toolcall_start","contentIndex":0,"toolCall":{"type":"toolCall","id":"i","name":"n","arguments":{}}}`
	for _, shape := range failedNumberShapes {
		for _, n := range []int{1000, 4000, 16000} {
			json := shape.open + strings.Repeat(shape.unit, n)
			checkpoint := `{"type":"toolcall_checkpoint","contentIndex":0,"json":` + pi.QuoteJSON(json) + `}`
			lines := [][]byte{[]byte(start), []byte(toolStart), []byte(checkpoint)}
			if _, err := ReduceJSON(lines); err != nil {
				b.Fatal(err)
			}
			b.Run(fmt.Sprintf("%s/%d", shape.name, n), func(b *testing.B) {
				b.SetBytes(int64(len(checkpoint)))
				for range b.N {
					_, _ = ReduceJSON(lines)
				}
			})
		}
	}
}
