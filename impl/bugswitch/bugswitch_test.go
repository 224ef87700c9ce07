//go:build frameproofbugs

package bugswitch

import (
	"fmt"
	"testing"
)

// A bug past the 32 bits of a Set is refused, not silently never on.
func TestTurnRefusesABugPastTheSet(t *testing.T) {
	names := make([]string, 33)
	for i := range names {
		names[i] = fmt.Sprint("b", i)
	}
	var s Set
	if err := s.Turn("p", names, "b31"); err != nil || !s.On(31) {
		t.Fatalf("bug 31: %v", err)
	}
	if err := s.Turn("p", names, "b32"); err == nil {
		t.Fatal("bug 32 accepted")
	}
	if err := s.Turn("p", names, "nope"); err == nil {
		t.Fatal("unknown bug accepted")
	}
}
