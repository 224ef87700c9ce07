package jsonl

import (
	"fmt"
	"sort"
)

// Bugs are deliberately injectable defects of the JSONL backend, switched on
// by the simulator's mutation score (sim/lanesim) to prove its checks catch
// them. The zero value is the correct store; production never sets them.
type Bugs struct {
	// AckBeforeFsync acknowledges a commit without fsyncing its bytes, so an
	// acknowledged commit can vanish in a crash.
	AckBeforeFsync bool
	// TornTailAsCorruption makes Open reject a torn final line as a corrupt
	// line instead of truncating it (pi repairs a torn tail).
	TornTailAsCorruption bool
	// CompactionRenumbers writes compacted records with fresh dense seqs
	// 1..n instead of their original seqs.
	CompactionRenumbers bool
}

var bugSwitches = map[string]func(*Bugs) *bool{
	"ack-before-fsync":        func(b *Bugs) *bool { return &b.AckBeforeFsync },
	"torn-tail-as-corruption": func(b *Bugs) *bool { return &b.TornTailAsCorruption },
	"compaction-renumbers":    func(b *Bugs) *bool { return &b.CompactionRenumbers },
}

// BugNames lists the injectable JSONL bugs by name, sorted.
func BugNames() []string {
	out := make([]string, 0, len(bugSwitches))
	for n := range bugSwitches {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Set turns the named bug on.
func (b *Bugs) Set(name string) error {
	f, ok := bugSwitches[name]
	if !ok {
		return fmt.Errorf("jsonl: unknown bug %q (known: %v)", name, BugNames())
	}
	*f(b) = true
	return nil
}

// Enabled lists the names of the switches that are on.
func (b Bugs) Enabled() []string {
	var out []string
	for _, n := range BugNames() {
		if *bugSwitches[n](&b) {
			out = append(out, n)
		}
	}
	return out
}
