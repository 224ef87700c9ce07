package jsonl

import "slices"

// bug names one deliberately injectable defect of the JSONL backend, for
// the simulator's mutation score (sim/lanesim). A bug's switch exists only
// in builds with the frameproofbugs tag (bugs_on.go); in every other build
// bugs.on is a constant false (bugs_off.go), the compiler drops every bug
// branch, and Options has no way to turn one on.
type bug uint8

const (
	// bugAckBeforeFsync acknowledges a commit without fsyncing its bytes,
	// so an acknowledged commit can vanish in a crash.
	bugAckBeforeFsync bug = iota
	// bugTornTailAsCorruption makes Open reject a torn final line as a
	// corrupt line instead of truncating it (pi repairs a torn tail).
	bugTornTailAsCorruption
	// bugCompactionRenumbers writes compacted records with fresh dense seqs
	// 1..n instead of their original seqs.
	bugCompactionRenumbers
	numBugs
)

// bugNames is the one registry of the JSONL backend's bug names.
var bugNames = [numBugs]string{
	bugAckBeforeFsync:       "ack-before-fsync",
	bugTornTailAsCorruption: "torn-tail-as-corruption",
	bugCompactionRenumbers:  "compaction-renumbers",
}

// BugNames lists the injectable JSONL bugs by name, sorted. The names exist
// in every build; the switches only with the frameproofbugs tag (WithBugs).
func BugNames() []string {
	out := slices.Clone(bugNames[:])
	slices.Sort(out)
	return out
}
