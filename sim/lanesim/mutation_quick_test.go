package lanesim

import (
	"testing"

	"github.com/frameproof/frameproof/sim/choice"
)

func TestQuickMutation(t *testing.T) {
	for _, bug := range BugNames() {
		found := -1
		where := ""
	search:
		for seed := uint64(0); seed < 60; seed++ {
			for _, sc := range Scenarios() {
				for _, be := range []string{"memory", "jsonl"} {
					out := sc.Run(choice.NewSeeded(seed), Options{Backend: be, Bugs: []string{bug}})
					if out.Failed {
						found, where = int(seed), sc.Name+"/"+be+": "+out.Kind+": "+out.Message
						break search
					}
				}
			}
		}
		if len(where) > 200 {
			where = where[:200]
		}
		t.Logf("%-34s seed %d %s", bug, found, where)
	}
}
