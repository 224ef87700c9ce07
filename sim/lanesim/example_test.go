package lanesim_test

import (
	"fmt"

	"github.com/frameproof/frameproof/sim/choice"
	"github.com/frameproof/frameproof/sim/lanesim"
)

// One scenario on one seed: every choice the run makes (scheduling, faults,
// provider behaviour) comes from the seeded source, so running the same
// seed again takes the same steps and gives the same trace hash. That is
// what makes a failing seed a reproduction. A failing run reports its kind;
// Outcome.Message names the check and where it failed.
func Example() {
	sc, ok := lanesim.ScenarioByName("append-order")
	if !ok {
		fmt.Println("no such scenario")
		return
	}
	first := sc.Run(choice.NewSeeded(7), lanesim.Options{Backend: "memory"})
	again := sc.Run(choice.NewSeeded(7), lanesim.Options{Backend: "memory"})

	verdict := "pass"
	if first.Failed {
		verdict = string(first.Kind) + ": " + first.Message
	}
	fmt.Println("verdict:", verdict)
	fmt.Println("checks ran:", first.Checks > 0)
	fmt.Println("same steps:", first.Steps == again.Steps)
	fmt.Println("same trace hash:", first.TraceHash != "" && first.TraceHash == again.TraceHash)
	// Output:
	// verdict: pass
	// checks ran: true
	// same steps: true
	// same trace hash: true
}
