package campaign

import (
	"testing"

	"github.com/frameproof/frameproof/sim/choice"
)

// BenchmarkCampaignRuns measures scenario runs per second for the small
// lost-update scenario (world setup, 3 actors, trace hash), shrinking off.
func BenchmarkCampaignRuns(b *testing.B) {
	runs := 0
	for b.Loop() {
		sum, err := Campaign{Run: lostUpdate, Seeds: 100, NoShrink: true}.Execute()
		if err != nil {
			b.Fatal(err)
		}
		runs += sum.Runs
	}
	b.ReportMetric(float64(runs)/b.Elapsed().Seconds(), "runs/s")
}

// BenchmarkSeededIntn is the cost of one recorded decision.
func BenchmarkSeededIntn(b *testing.B) {
	s := choice.NewSeeded(1)
	for b.Loop() {
		s.Intn("x", 7)
	}
}
