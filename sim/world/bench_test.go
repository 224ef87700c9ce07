package world

import (
	"fmt"
	"testing"
	"time"

	"github.com/frameproof/frameproof/sim/choice"
	"github.com/frameproof/frameproof/sim/trace"
)

// BenchmarkYieldSteps measures scheduler steps per second with N actors that
// only yield (the cost of one baton pass + one choice + one trace record).
func BenchmarkYieldSteps(b *testing.B) {
	for _, n := range []int{1, 2, 8, 64, 512} {
		for _, keep := range []bool{true, false} {
			name := fmt.Sprintf("actors=%d/trace=%s", n, map[bool]string{true: "kept", false: "hash"}[keep])
			b.Run(name, func(b *testing.B) {
				const total = 2000 // yields per world, split among the actors
				steps := int64(0)
				b.ReportAllocs()
				for b.Loop() {
					got, err := YieldLoad(n, total, keep)
					if err != nil {
						b.Fatal(err)
					}
					steps += got
				}
				b.ReportMetric(float64(steps)/b.Elapsed().Seconds(), "steps/s")
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(steps), "ns/step")
			})
		}
	}
}

// BenchmarkFuturesAndSleeps mixes the other scheduling points: pairs of
// actors ping-pong futures while a clock actor sleeps.
func BenchmarkFuturesAndSleeps(b *testing.B) {
	for _, pairs := range []int{1, 8, 64} {
		b.Run(fmt.Sprintf("pairs=%d", pairs), func(b *testing.B) {
			steps := int64(0)
			for b.Loop() {
				w := New(choice.NewSeeded(2), Options{Trace: trace.NewHashOnly(), IdleOK: true})
				err := w.Run(func() {
					w.Go("clock", func() {
						for range 200 {
							w.Sleep(time.Millisecond)
						}
					})
					for p := range pairs {
						rounds := 1000 / pairs
						req := make([]*Future, rounds)
						resp := make([]*Future, rounds)
						for i := range rounds {
							req[i] = w.NewFuture(fmt.Sprintf("req%d", p)).(*Future)
							resp[i] = w.NewFuture(fmt.Sprintf("resp%d", p)).(*Future)
						}
						w.Go("server", func() {
							for i := range rounds {
								_ = req[i].Wait()
								resp[i].Resolve(nil)
							}
						})
						w.Go("client", func() {
							for i := range rounds {
								req[i].Resolve(nil)
								_ = resp[i].Wait()
							}
						})
					}
				})
				if err != nil {
					b.Fatal(err)
				}
				steps += w.Step()
			}
			b.ReportMetric(float64(steps)/b.Elapsed().Seconds(), "steps/s")
		})
	}
}
