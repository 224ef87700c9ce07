package provider

import (
	"strings"
	"testing"

	impl "github.com/frameproof/frameproof/impl/provider"
	"pgregory.net/rapid"
)

// The Go reference adapters keep the whole contract on every wire.
func TestGoAdaptersKeepContract(t *testing.T) {
	for _, wire := range impl.Wires {
		t.Run(string(wire), func(t *testing.T) {
			rapid.Check(t, func(rt *rapid.T) {
				sc := GenScenario(wire).Draw(rt, "scenario")
				res, err := RunScenario(GoSubject{}, sc)
				if err != nil {
					rt.Fatal(err)
				}
				if res.Failed() {
					rt.Fatalf("violations:\n%s\nstream:\n%s", joinViolations(res.Violations), res.Rendered.Body)
				}
			})
		})
	}
}

func joinViolations(vs []Violation) string {
	var sb strings.Builder
	for _, v := range vs {
		sb.WriteString("  " + v.String() + "\n")
	}
	return sb.String()
}
