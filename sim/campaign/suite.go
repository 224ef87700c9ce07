package campaign

import (
	"slices"
	"strings"

	"github.com/anishathalye/porcupine"

	"github.com/frameproof/frameproof/sim/choice"
	"github.com/frameproof/frameproof/sim/linz"
	"github.com/frameproof/frameproof/sim/trace"
)

// A Suite is a set of named scenarios over store backends, with the race
// table their runs report against: what Run, `frameproof sim`, `repro` and
// `shrink` drive. sim/lanesim is the suite the CLI runs; the CLI's tests
// drive a small fake one.

// RunOptions configures one scenario run.
type RunOptions struct {
	Backend   string   // a name from Suite.Backends()
	Bugs      []string // injected bugs (Suite.BugNames())
	TempDir   string   // unused by lanesim: every backend simulates in memory or on faults.FS
	KeepTrace bool     // keep the JSONL trace in Outcome.Trace (repro), not just its hash
	MaxSteps  int      // per-run step cap (0: the scenario's default)
}

// Outcome is a scenario's verdict for one run.
type Outcome struct {
	Failed    bool
	Kind      FailureKind // kinds.go
	Message   string
	Steps     int
	TraceHash string
	Trace     *trace.Trace      // nil unless KeepTrace
	Races     map[string]string // race row id -> (first) order taken in this run
	// RaceOrders lists every order a run took per row (a run may take
	// both); when nil, Races alone counts.
	RaceOrders map[string][]string
	Linz       *linz.Recorder // client-visible history (may be nil)
	Faults     []string       // injected faults, in order
	// Checks counts the checks that ran (0 = unknown), so a pass is never
	// vacuous.
	Checks int
	// TXCompared counts the acknowledged transactions whose write lists
	// were compared with the model's, write by write.
	TXCompared int
	// Structural counts the structural generations that returned and were
	// checked.
	Structural int
	// CrashImages hashes the disk after each simulated power loss.
	CrashImages []uint64
	// Settings are the knobs a swarm seed drew ("" for fixed profiles).
	Settings string
}

// Scenario is one named scenario of a suite.
type Scenario struct {
	Name, Description string
	Rows              []string // race rows it can exercise (coverage goals)
	Run               func(src choice.Source, opts RunOptions) Outcome
}

// RaceRow is one row of the race table and its two orders.
type RaceRow struct {
	ID, Name string
	Orders   [2]string
}

// Suite is everything the campaign and the CLI need from a scenario layer.
type Suite interface {
	Scenarios() []Scenario
	RaceRows() []RaceRow
	BugNames() []string
	Backends() []string
	// LinzModel is the porcupine model of the client-visible history, used
	// for the HTML visualization; nil when the suite has none.
	LinzModel() porcupine.Model
	// BugsCompiled reports whether BugNames can be switched on in this
	// build (lanesim's switches need the frameproofbugs tag).
	BugsCompiled() bool
}

// CoverageGoals returns the race rows the given scenarios can exercise, in
// race-table order. Row ids a scenario names that the table lacks have no
// known orders and so set no goal.
func CoverageGoals(rows []RaceRow, scenarios []Scenario) []RaceRow {
	want := map[string]bool{}
	for _, sc := range scenarios {
		for _, r := range sc.Rows {
			want[r] = true
		}
	}
	var out []RaceRow
	for _, r := range rows {
		if want[r.ID] {
			out = append(out, r)
		}
	}
	return out
}

// RacesTaken lists, sorted by row id, each row the run exercised followed
// by the orders it took there: {row, order, ...}.
func (o Outcome) RacesTaken() [][]string {
	taken := o.TakenOrders()
	out := make([][]string, 0, len(taken))
	for row, orders := range taken {
		out = append(out, append([]string{row}, orders...))
	}
	slices.SortFunc(out, func(a, b []string) int { return strings.Compare(a[0], b[0]) })
	return out
}

// TakenOrders is every (row, order) a run took, each once.
func (o Outcome) TakenOrders() map[string][]string {
	if o.RaceOrders != nil {
		out := map[string][]string{}
		for row, orders := range o.RaceOrders {
			for _, ord := range orders {
				if !slices.Contains(out[row], ord) {
					out[row] = append(out[row], ord)
				}
			}
		}
		for row, ord := range o.Races {
			if !slices.Contains(out[row], ord) {
				out[row] = append(out[row], ord)
			}
		}
		return out
	}
	out := make(map[string][]string, len(o.Races))
	for row, ord := range o.Races {
		out[row] = []string{ord}
	}
	return out
}

// ShrinkStepCap bounds the steps of a shrink candidate. Candidates replay an
// edited tape padded with zeros, and an all-zero schedule can spin until the
// scenario's step budget (a liveness failure, slow to reach). A candidate
// that runs far longer than the failing run cannot fail with its (non-
// liveness) kind any sooner, so it is cut off; for liveness failures the
// budget is the point, so it is left to the scenario (lanesim.StepBudget
// gives a replayed tape a budget proportional to its length).
func ShrinkStepCap(failing Outcome) int {
	if failing.Kind == KindLiveness {
		return 0
	}
	return max(4*failing.Steps, 2000)
}
