package lanesim

import (
	"testing"

	"github.com/frameproof/frameproof/sim/choice"
)

func TestQuickAll(t *testing.T) {
	for _, sc := range Scenarios() {
		for _, be := range Backends() {
			fails := 0
			for seed := uint64(0); seed < 40; seed++ {
				out := sc.Run(choice.NewSeeded(seed), Options{Backend: be, TempDir: t.TempDir()})
				if out.Failed {
					fails++
					if fails <= 2 {
						t.Errorf("%s/%s seed %d: %s: %s", sc.Name, be, seed, out.Kind, out.Message)
					}
				}
			}
		}
	}
}
