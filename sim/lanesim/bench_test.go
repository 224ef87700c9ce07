package lanesim

import (
	"testing"

	"github.com/frameproof/frameproof/sim/choice"
)

// BenchmarkScenario reports scenarios/s and simulated steps/s per backend.
func BenchmarkScenario(b *testing.B) {
	for _, name := range []string{"append-order", "crash-with-queued-writes", "mix"} {
		for _, be := range Backends() {
			sc, _ := ScenarioByName(name)
			b.Run(name+"/"+be, func(b *testing.B) {
				dir := b.TempDir()
				steps := 0
				for i := 0; i < b.N; i++ {
					out := sc.Run(choice.NewSeeded(uint64(i)), Options{Backend: be, TempDir: dir})
					if out.Failed {
						b.Fatalf("seed %d: %s: %s", i, out.Kind, out.Message)
					}
					steps += out.Steps
				}
				s := b.Elapsed().Seconds()
				b.ReportMetric(float64(b.N)/s, "scenarios/s")
				b.ReportMetric(float64(steps)/s, "steps/s")
			})
		}
	}
}

// BenchmarkDefaultMix runs, per iteration, one seed of every scenario on
// every backend: the default campaign's mix, to profile it as a whole
// (go test -run XXX -bench DefaultMix -cpuprofile cpu.out ./sim/lanesim).
func BenchmarkDefaultMix(b *testing.B) {
	scs, bes := Scenarios(), Backends()
	runs := 0
	for i := 0; i < b.N; i++ {
		for _, sc := range scs {
			for _, be := range bes {
				out := sc.Run(choice.NewSeeded(uint64(i+1)), Options{Backend: be})
				if out.Failed {
					b.Fatalf("%s/%s seed %d: %s: %s", sc.Name, be, i+1, out.Kind, out.Message)
				}
				runs++
			}
		}
	}
	b.ReportMetric(float64(runs)/b.Elapsed().Seconds(), "scenarios/s")
}
