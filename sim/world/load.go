package world

import (
	"fmt"

	"github.com/frameproof/frameproof/sim/choice"
	"github.com/frameproof/frameproof/sim/trace"
)

// YieldLoad runs one world of actors that only yield, totalSteps/actors
// yields each, and returns the scheduler steps it took: the cost of one
// baton pass, one choice and one trace record, with nothing else. It is the
// kernel's ceiling for the simulator's throughput, shared by the package's
// benchmark and `frameproof bench --family sim`. keepTrace keeps the full
// trace; otherwise only its hash is kept.
func YieldLoad(actors, totalSteps int, keepTrace bool) (int64, error) {
	tr := trace.NewHashOnly()
	if keepTrace {
		tr = trace.New()
	}
	w := New(choice.NewSeeded(1), Options{Trace: tr})
	for i := range actors {
		w.Go(fmt.Sprintf("a%d", i), func() {
			for range totalSteps / actors {
				w.Yield()
			}
		})
	}
	if err := w.Run(nil); err != nil {
		return 0, err
	}
	return w.Step(), nil
}
