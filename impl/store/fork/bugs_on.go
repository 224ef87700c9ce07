//go:build frameproofbugs

package fork

import "github.com/frameproof/frameproof/impl/bugswitch"

// bugs is the set of switched-on bugs (bugs.go). It exists only with the
// frameproofbugs tag, which the simulator's mutation score builds with.
type bugs struct{ bugswitch.Set }

func (b bugs) on(x bug) bool { return b.On(uint8(x)) }

// set turns the named bug on.
func (b *bugs) set(name string) error { return b.Turn("fork", bugNames[:], name) }

// enabled lists the names of the switched-on bugs, sorted.
func (b bugs) enabled() []string { return b.Enabled(bugNames[:]) }

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
