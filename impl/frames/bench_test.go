package frames

import (
	"runtime"
	"testing"

	"github.com/frameproof/frameproof/impl/pi"
)

// benchStream is one text block of `size` bytes in 1–16 byte deltas. The
// delta events are shared (the encoder keeps nothing of them), so the
// stream costs little memory even at 16 MB.
func benchStream(size int) []*pi.Event {
	partial := &pi.AssistantMessage{Content: []pi.Content{pi.TextContent{}}, API: "a", Provider: "p", Model: "m", StopReason: pi.StopPending}
	pieces := make([]*pi.Event, 16)
	for n := 1; n <= 16; n++ {
		d := make([]byte, n)
		for i := range d {
			d[i] = "abcdefgh é\"\n"[i%12]
		}
		pieces[n-1] = &pi.Event{Type: pi.EventTextDelta, ContentIndex: pi.Index(0), Delta: pi.Normalize(string(d)), Partial: partial}
	}
	events := []*pi.Event{{Type: pi.EventStart, Partial: partial}, {Type: pi.EventTextStart, ContentIndex: pi.Index(0), Partial: partial}}
	for total, k := 0, 0; total < size; k++ {
		e := pieces[(k*7)%16]
		events = append(events, e)
		total += len(e.Delta)
	}
	return append(events, &pi.Event{Type: pi.EventDone, Reason: pi.StopStop, Message: partial})
}

var benchSizes = []struct {
	name string
	size int
}{{"1KB", 1 << 10}, {"64KB", 64 << 10}, {"1MB", 1 << 20}, {"16MB", 16 << 20}}

func BenchmarkEncode(b *testing.B) {
	for _, sz := range benchSizes {
		b.Run(sz.name, func(b *testing.B) {
			events := benchStream(sz.size)
			perEvent(b, len(events), func() {
				enc := NewEncoder()
				for _, ev := range events {
					f, err := enc.Encode(ev)
					if err != nil {
						b.Fatal(err)
					}
					if f != nil {
						f.AppendJSON(nil)
					}
				}
			})
		})
	}
}

// BenchmarkAppendFrame is BenchmarkEncode through the append API, writing
// every frame into one reused buffer, as a frame log's writer does.
func BenchmarkAppendFrame(b *testing.B) {
	for _, sz := range benchSizes {
		b.Run(sz.name, func(b *testing.B) {
			events := benchStream(sz.size)
			buf := make([]byte, 0, 4096)
			perEvent(b, len(events), func() {
				enc := NewEncoder()
				for _, ev := range events {
					var err error
					if buf, _, err = enc.AppendFrame(buf[:0], ev); err != nil {
						b.Fatal(err)
					}
				}
			})
		})
	}
}

// perEvent runs pass b.N times and reports its time and mallocs per event,
// pass handling events events each time.
func perEvent(b *testing.B, events int, pass func()) {
	var ms0, ms1 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		pass()
	}
	b.StopTimer()
	runtime.ReadMemStats(&ms1)
	n := float64(b.N) * float64(events)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/n, "ns/event")
	b.ReportMetric(float64(ms1.Mallocs-ms0.Mallocs)/n, "allocs/event")
}

func BenchmarkReduce(b *testing.B) {
	for _, sz := range benchSizes {
		b.Run(sz.name, func(b *testing.B) {
			enc := NewEncoder()
			var fs []pi.Frame
			bytes := 0
			for _, ev := range benchStream(sz.size) {
				f, _ := enc.Encode(ev)
				if f != nil {
					fs = append(fs, *f)
					bytes += len(f.AppendJSON(nil)) + 1
				}
			}
			b.SetBytes(int64(bytes))
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := Reduce(fs); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
