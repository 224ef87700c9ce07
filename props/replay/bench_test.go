package replay

import (
	"fmt"
	"testing"

	impl "github.com/frameproof/frameproof/impl/replay"
)

// BenchmarkProject reports ns per stored message; a flat column across
// sizes is the linear-time claim.
func BenchmarkProject(b *testing.B) {
	for _, n := range []int{100, 10_000, 100_000} {
		msgs := LargeTranscript(n)
		for _, w := range impl.Wires {
			b.Run(fmt.Sprintf("%s/n=%d", w, n), func(b *testing.B) {
				tg := impl.Target{Wire: w, Provider: "p", Model: "m"} // the transcript's own model
				b.ReportAllocs()
				var size int
				for b.Loop() {
					body, err := impl.Project(msgs, tg, impl.Options{})
					if err != nil {
						b.Fatal(err)
					}
					size = len(body)
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/msg")
				b.ReportMetric(float64(size), "body-bytes")
			})
		}
	}
}

func BenchmarkMicrocompact(b *testing.B) {
	for _, n := range []int{100, 10_000, 100_000} {
		msgs := LargeTranscript(n)
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, _, err := impl.Microcompact(msgs, impl.DefaultMicrocompact()); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/msg")
		})
	}
}
