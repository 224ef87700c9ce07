//go:build !frameproofbugs

package fork

// bugs holds no switch without the frameproofbugs tag: on is a constant
// false, so the compiler removes every bug branch (bugs.go).
type bugs struct{}

func (bugs) on(bug) bool { return false }
