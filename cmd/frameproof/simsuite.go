package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/anishathalye/porcupine"

	"github.com/frameproof/frameproof/sim/choice"
	"github.com/frameproof/frameproof/sim/linz"
	"github.com/frameproof/frameproof/sim/trace"
)

// The sim, repro and shrink commands drive a simSuite: the scenario layer
// seen through the CLI's own copy of its types, so the commands can be
// tested against a small fake suite and the real scenario package is wired
// in by one adapter.

// simOptions configures one scenario run.
type simOptions struct {
	Backend   string   // "memory" | "jsonl" | "sqlite"
	Bugs      []string // injected bugs
	TempDir   string   // where file backends put their files
	KeepTrace bool     // keep the JSONL trace (repro), not just its hash
	MaxSteps  int      // per-run step cap (0 = scenario default)
}

// simOutcome is a scenario's verdict for one run.
type simOutcome struct {
	Failed    bool
	Kind      string
	Message   string
	Steps     int
	TraceHash string
	Trace     *trace.Trace      // nil unless KeepTrace
	Races     map[string]string // race row id -> (first) order taken in this run
	// RaceOrders lists every order a run took per row (a run may take
	// both); when nil, Races alone counts.
	RaceOrders map[string][]string
	Checks     int            // checks that ran (0 = unknown)
	Linz       *linz.Recorder // client-visible history (may be nil)
	Faults     []string       // injected faults, in order
	// CrashImages hashes the disk after each simulated power loss.
	CrashImages []uint64
}

// simScenario is one named scenario.
type simScenario struct {
	Name, Description string
	Rows              []string // race rows it can exercise (coverage goals)
	Run               func(src choice.Source, opts simOptions) simOutcome
}

// simRaceRow is one row of the race table and its two orders.
type simRaceRow struct {
	ID, Name string
	Orders   [2]string
}

// simSuite is everything the commands need from the scenario layer.
type simSuite interface {
	Scenarios() []simScenario
	RaceRows() []simRaceRow
	BugNames() []string
	// BugsCompiled reports whether the bugs can be switched on in this
	// build (lanesim's need -tags frameproofbugs; bugbuild.go).
	BugsCompiled() bool
	Backends() []string
	// LinzModel is the porcupine model of the client-visible history, used
	// for the HTML visualization; nil when the suite has none.
	LinzModel() porcupine.Model
}

// activeSuite is the suite the commands run; tests swap it.
var activeSuite simSuite = defaultSuite()

// lookupScenarios resolves a comma-separated list ("" = all).
func lookupScenarios(s simSuite, list string) ([]simScenario, error) {
	all := s.Scenarios()
	valid := scenarioNames(s)
	names, err := lookupNames("scenario", list, valid, valid)
	if err != nil {
		return nil, err
	}
	out := make([]simScenario, len(names))
	for i, name := range names {
		out[i] = all[slices.Index(valid, name)]
	}
	return out, nil
}

// lookupNames checks a comma-separated list against valid names ("" = def).
func lookupNames(what, list string, valid, def []string) ([]string, error) {
	if strings.TrimSpace(list) == "" {
		return def, nil
	}
	var out []string
	seen := map[string]bool{}
	for _, name := range splitList(list) {
		if seen[name] {
			continue
		}
		seen[name] = true
		if !contains(valid, name) {
			return nil, fmt.Errorf("unknown %s %q (valid: %s)", what, name, strings.Join(valid, ", "))
		}
		out = append(out, name)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no %s given", what)
	}
	return out, nil
}

func scenarioNames(s simSuite) []string {
	var names []string
	for _, sc := range s.Scenarios() {
		names = append(names, sc.Name)
	}
	return names
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// coverageGoals returns the race rows the given scenarios can exercise, in
// race-table order. Row ids a scenario names that the table lacks have no
// known orders and so set no goal.
func coverageGoals(s simSuite, scenarios []simScenario) []simRaceRow {
	want := map[string]bool{}
	for _, sc := range scenarios {
		for _, r := range sc.Rows {
			want[r] = true
		}
	}
	var rows []simRaceRow
	for _, r := range s.RaceRows() {
		if want[r.ID] {
			rows = append(rows, r)
		}
	}
	return rows
}

// racesTaken lists, sorted by row id, each row the run exercised followed
// by the orders it took there: {row, order, ...}.
func (o simOutcome) racesTaken() [][]string {
	taken := o.takenOrders()
	out := make([][]string, 0, len(taken))
	for row, orders := range taken {
		out = append(out, append([]string{row}, orders...))
	}
	slices.SortFunc(out, func(a, b []string) int { return strings.Compare(a[0], b[0]) })
	return out
}

// takenOrders is every (row, order) a run took, each once.
func (o simOutcome) takenOrders() map[string][]string {
	if o.RaceOrders != nil {
		out := map[string][]string{}
		for row, orders := range o.RaceOrders {
			for _, ord := range orders {
				if !contains(out[row], ord) {
					out[row] = append(out[row], ord)
				}
			}
		}
		for row, ord := range o.Races {
			if !contains(out[row], ord) {
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
