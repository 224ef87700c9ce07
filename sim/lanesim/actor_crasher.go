package lanesim

import (
	"github.com/frameproof/frameproof/sim/choice"
)

func (r *runner) crasher() {
	for k := 0; k < r.p.crashes && !r.finished && !r.failed; {
		r.pause("crash", 120)
		if r.finished || r.failed || r.closing {
			continue
		}
		if choice.Chance(r.w, "crash", 1, 2) {
			k++
			r.crashAndRestart("crash", true)
		}
	}
}
