//go:build frameproofbugs

// Package bugswitch is the switch set behind impl's deliberately injectable
// bugs. It builds only with the frameproofbugs tag, as do the packages'
// bugs_on.go files that use it: in every other build the bug checks are a
// constant false and nothing here exists (docs/ARCHITECTURE.md).
package bugswitch

import (
	"fmt"
	"slices"
)

// Set holds switched-on bugs, bit i for the package's bug i.
type Set uint32

// On reports whether bug i is switched on.
func (s Set) On(i uint8) bool { return s&(1<<i) != 0 }

// Turn switches on the bug named name among names (the package's registry,
// bug i at index i); pkg prefixes the error for an unknown name.
func (s *Set) Turn(pkg string, names []string, name string) error {
	if i := slices.Index(names, name); i >= 32 {
		return fmt.Errorf("%s: bug %q is number %d, past the 32 a Set holds", pkg, name, i)
	} else if i >= 0 {
		*s |= 1 << i
		return nil
	}
	known := slices.Clone(names)
	slices.Sort(known)
	return fmt.Errorf("%s: unknown bug %q (known: %v)", pkg, name, known)
}

// Enabled lists the names of the switched-on bugs, sorted.
func (s Set) Enabled(names []string) []string {
	var out []string
	for i, n := range names {
		if s.On(uint8(i)) {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out
}
