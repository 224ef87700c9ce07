// Package choice is the single source of every nondeterministic decision in
// a simulation run: generated inputs, which actor runs next, when the clock
// advances, which fault fires.
//
// A run asks a Source for integers with Intn(label, n). The label names the
// decision (it shows up in rapid's output and in recorded tapes) but never
// changes the value drawn. Three implementations exist:
//
//   - FromRapid(t): each decision is a rapid draw, so a failing go test
//     property shrinks all decisions together.
//   - NewSeeded(seed): a small deterministic PRNG (splitmix64) that records a
//     Tape of every decision; campaigns use it.
//   - NewReplay(tape): returns the recorded values again; it tolerates
//     tapes edited by the shrinker (out-of-range values are clamped to n-1,
//     draws past the end return 0).
//
// Fixed (a constant) and Enumerate (every decision sequence, exhaustively)
// are Sources too; faults.FS draws its crash and fault decisions from one.
//
// Convention shared by all implementations: n <= 1 returns 0 without
// consuming a decision, and 0 is always the "simplest" outcome, the one shrinking moves towards. The
// helpers in helpers.go (Bool, Chance, Pick, Range, Weighted, Perm) keep that
// convention: value 0 means false / no fault / first element.
package choice

// Source supplies the decisions of one run. Implementations are not safe for
// concurrent use; the simulator only calls them from the actor holding the
// baton.
type Source interface {
	// Intn returns a value in [0, n). n <= 1 returns 0 and records nothing.
	Intn(label string, n int) int
}

// Namer is implemented by the sources that record decisions (Seeded,
// Replay, the enumerator). NameLast relabels the decision just recorded: the
// scheduler draws which runnable actor runs before it knows the actor, and
// then names its pick ("sched driver#2") so that a tape reads as the
// schedule it is. A label never changes a value, so renaming is invisible
// to replay; with no decision recorded yet NameLast does nothing.
type Namer interface {
	NameLast(label string)
}

// nameLast relabels the last choice of t (see Namer).
func (t Tape) nameLast(label string) {
	if len(t) > 0 {
		t[len(t)-1].Label = label
	}
}

// Choice is one recorded decision: the label, the range n and the value.
type Choice struct {
	Label string `json:"l"`
	N     int    `json:"n"`
	V     int    `json:"v"`
}

// Tape is the ordered list of decisions a run made. It is JSON-serialisable
// and replayable with NewReplay.
type Tape []Choice

// Values returns the values of the tape in order.
func (t Tape) Values() []int {
	out := make([]int, len(t))
	for i, c := range t {
		out[i] = c.V
	}
	return out
}

// Clone returns a copy of the tape that shares no memory with t.
func (t Tape) Clone() Tape {
	if t == nil {
		return nil
	}
	return append(Tape(nil), t...)
}

// TapeOf builds a tape from bare values (labels empty, N unknown = 0). Handy
// for tests and for replaying a tape that was stored as values only.
func TapeOf(values ...int) Tape {
	t := make(Tape, len(values))
	for i, v := range values {
		t[i] = Choice{V: v}
	}
	return t
}
