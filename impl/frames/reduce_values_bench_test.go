package frames

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/frameproof/frameproof/impl/pi"
)

// BenchmarkReduceStored compares the two readings of a stored frame list,
// from the stored bytes to the message, side by side: strict (pi.ParseFrame
// + Reduce, the old recovery path and `reduce --strict`), as pi-ai
// (pi.ParseJSON + ReduceValues) and as pi-ai from the bytes (ReduceJSON,
// recovery, Snapshot and `reduce`, with the message's JSON written too).
func BenchmarkReduceStored(b *testing.B) {
	for _, sz := range benchSizes[:3] {
		enc := NewEncoder()
		var stored []string
		bytes := 0
		for _, ev := range benchStream(sz.size) {
			if f, _ := enc.Encode(ev); f != nil {
				stored = append(stored, string(f.AppendJSON(nil)))
				bytes += len(stored[len(stored)-1]) + 1
			}
		}
		b.Run("strict/"+sz.name, func(b *testing.B) {
			b.SetBytes(int64(bytes))
			for i := 0; i < b.N; i++ {
				fs := make([]pi.Frame, len(stored))
				for j, s := range stored {
					f, err := pi.ParseFrame(s)
					if err != nil {
						b.Fatal(err)
					}
					fs[j] = *f
				}
				if _, err := Reduce(fs); err != nil {
					b.Fatal(err)
				}
			}
		})
		lines := make([][]byte, len(stored))
		for j, s := range stored {
			lines[j] = []byte(s)
		}
		b.Run("json/"+sz.name, func(b *testing.B) {
			b.SetBytes(int64(bytes))
			b.ReportAllocs()
			var buf []byte
			for i := 0; i < b.N; i++ {
				m, err := ReduceJSON(lines)
				if err != nil {
					b.Fatal(err)
				}
				buf = m.AppendJSON(buf[:0])
			}
		})
		b.Run("write/"+sz.name, func(b *testing.B) {
			b.SetBytes(int64(bytes))
			b.ReportAllocs()
			var buf []byte
			var s StoredReducer
			for i := 0; i < b.N; i++ {
				var err error
				if buf, _, err = s.AppendReducedJSON(buf[:0], lines); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("piai/"+sz.name, func(b *testing.B) {
			b.SetBytes(int64(bytes))
			for i := 0; i < b.N; i++ {
				vs := make([]pi.JSONValue, len(stored))
				for j, s := range stored {
					v, err := pi.ParseJSON(s)
					if err != nil {
						b.Fatal(err)
					}
					vs[j] = v
				}
				if _, err := ReduceValues(vs); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkReduceStoredScripts is the write path over streams unlike the
// codec bench's (whose 16 deltas the literal cache holds after one pass):
// CJK text, one to four characters a delta from a few thousand, where
// nearly every literal misses the cache, and English words with an escape
// or a curly quote in one delta of seven. The adversarial review of the
// reducer's fast paths found the first 1.4× slower than before them.
func BenchmarkReduceStoredScripts(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	words := strings.Fields("the of and to in is that for it as with was on be by this are or an at from have not but")
	for _, script := range []string{"cjk", "english"} {
		partial := &pi.AssistantMessage{Content: []pi.Content{pi.TextContent{}}, API: "a", Provider: "p", Model: "m", StopReason: pi.StopPending}
		events := []*pi.Event{{Type: pi.EventStart, Partial: partial}, {Type: pi.EventTextStart, ContentIndex: pi.Index(0), Partial: partial}}
		for range 30000 {
			var d strings.Builder
			for k := 1 + rng.IntN(4); k > 0; k-- {
				if script == "cjk" {
					d.WriteRune(rune(0x4e00 + rng.IntN(5000)))
				} else {
					d.WriteString(" " + words[rng.IntN(len(words))])
				}
			}
			if script == "english" {
				d.WriteString([]string{"", "", "", "", "\n", "\"", "’"}[rng.IntN(7)])
			}
			events = append(events, &pi.Event{Type: pi.EventTextDelta, ContentIndex: pi.Index(0), Delta: d.String(), Partial: partial})
		}
		var log []byte
		var at []int
		enc := NewEncoder()
		for _, ev := range events {
			if f, _ := enc.Encode(ev); f != nil {
				at = append(at, len(log))
				log = append(f.AppendJSON(log), '\n')
			}
		}
		lines := make([][]byte, len(at))
		for i, a := range at {
			lines[i] = log[a : len(log)-1]
			if i+1 < len(at) {
				lines[i] = log[a : at[i+1]-1]
			}
		}
		b.Run(script, func(b *testing.B) {
			b.SetBytes(int64(len(log)))
			loopAppendReduced(b, lines)
		})
	}
}

// loopAppendReduced reduces lines through one StoredReducer, its buffers
// reused, until b is done, and reports the time a stored frame.
func loopAppendReduced(b *testing.B, lines [][]byte) {
	var buf []byte
	var s StoredReducer
	for b.Loop() {
		var err error
		if buf, _, err = s.AppendReducedJSON(buf[:0], lines); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(lines)), "ns/frame")
}
