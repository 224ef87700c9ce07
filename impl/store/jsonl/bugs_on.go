//go:build frameproofbugs

package jsonl

import "fmt"

// bugs is a set of switched-on bugs, bit i for bug i (bugs.go). It exists
// only with the frameproofbugs tag, which the simulator's mutation score
// builds with.
type bugs uint32

func (b bugs) on(x bug) bool { return b&(1<<x) != 0 }

// set turns the named bug on.
func (b *bugs) set(name string) error {
	for x, n := range bugNames {
		if n == name {
			*b |= 1 << x
			return nil
		}
	}
	return fmt.Errorf("jsonl: unknown bug %q (known: %v)", name, BugNames())
}

// enabled lists the names of the switched-on bugs, sorted.
func (b bugs) enabled() []string {
	var out []string
	for _, n := range BugNames() {
		var one bugs
		_ = one.set(n)
		if b&one != 0 {
			out = append(out, n)
		}
	}
	return out
}

// WithBugs returns opts with the named bugs (BugNames) switched on as well.
// It exists only in builds with the frameproofbugs tag.
func WithBugs(opts Options, names ...string) (Options, error) {
	for _, n := range names {
		if err := opts.bugs.set(n); err != nil {
			return opts, err
		}
	}
	return opts, nil
}
