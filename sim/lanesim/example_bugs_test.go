//go:build frameproofbugs

package lanesim_test

import (
	"fmt"

	"github.com/frameproof/frameproof/sim/choice"
	"github.com/frameproof/frameproof/sim/lanesim"
)

// The seed of Example with an injected defect (settlement keeps the frame
// list) fails, and names the kind of check that caught it. Bug switches are
// compiled in only with -tags frameproofbugs.
func Example_injectedBug() {
	sc, _ := lanesim.ScenarioByName("append-order")
	buggy := sc.Run(choice.NewSeeded(7), lanesim.Options{Backend: "memory", Bugs: []string{"settle-without-delete"}})
	fmt.Println("with settle-without-delete:", buggy.Failed, buggy.Kind)
	// Output:
	// with settle-without-delete: true invariant
}
