package codec

import (
	"testing"

	"encoding/json"

	"github.com/frameproof/frameproof/impl/frames"
	"github.com/frameproof/frameproof/impl/pi"
	"github.com/frameproof/frameproof/props/peer"
)

// BenchmarkEncodeSideBySide runs the same stream through frameproof's
// encoder and through pi-ai 1.0.3's in node (timed inside node with
// process.hrtime, after warm-up), and reports both per-event costs and their
// ratio. Neither side serializes the frames, so the figures compare the
// encoders alone.
func BenchmarkEncodeSideBySide(b *testing.B) {
	p := peer.Open(b)
	for _, sz := range []struct {
		name string
		size int
	}{{"1KB", 1 << 10}, {"64KB", 64 << 10}, {"1MB", 1 << 20}} {
		b.Run(sz.name, func(b *testing.B) {
			events := BenchStream(sz.size)
			raw := make([]json.RawMessage, len(events))
			for i, ev := range events {
				bytes, err := pi.Marshal(ev)
				if err != nil {
					b.Fatal(err)
				}
				raw[i] = bytes
			}
			iterations := max(1, (4<<20)/sz.size)
			piNs, err := p.BenchEncode(raw, iterations)
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				enc := frames.NewEncoder()
				for _, ev := range events {
					if _, err := enc.Encode(ev); err != nil {
						b.Fatal(err)
					}
				}
			}
			goNs := float64(b.Elapsed().Nanoseconds()) / (float64(b.N) * float64(len(events)))
			b.ReportMetric(goNs, "go-ns/event")
			b.ReportMetric(piNs, "piai-ns/event")
			b.ReportMetric(piNs/goNs, "piai/go")
		})
	}
}
