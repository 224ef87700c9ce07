package lanesim

import (
	"errors"
	"slices"
	"sort"

	"github.com/frameproof/frameproof/impl/lane"
	"github.com/frameproof/frameproof/impl/store/backends"
	"github.com/frameproof/frameproof/impl/store/jsonl"
	"github.com/frameproof/frameproof/sim/choice"
	"github.com/frameproof/frameproof/sim/linz"
	"github.com/frameproof/frameproof/sim/trace"
)

// Options configure one run.
type Options struct {
	Backend   string   // a name from Backends() (default memory)
	Bugs      []string // lane bug names and store bug names (BugNames)
	TempDir   string   // sqlite files go here (required for sqlite)
	KeepTrace bool     // keep the JSONL trace in Outcome.Trace
	MaxSteps  int      // world step budget (0: StepBudget of the source)
}

// DefaultMaxSteps bounds one seeded run's scheduler steps; using them up is
// a liveness failure.
const DefaultMaxSteps = 200_000

// A replayed tape gets a budget proportional to its length:
// ReplayStepFloor + ReplayStepsPerChoice per recorded choice (at most
// DefaultMaxSteps). Past its end a tape replays as zeros, and an all-zero
// schedule can spin (the first runnable actor polling forever), so a
// shrink candidate or a shrunk liveness tape would otherwise run all
// DefaultMaxSteps steps before it reports liveness: the shrinker of a
// liveness failure spent most of its time there. A whole scenario takes a
// few hundred steps (at most ~330 over every scenario's first 150 seeds, and
// ~300 for their first 20 seeds' tapes cut at each quarter), so the floor
// leaves a wide margin; a tape recorded from a run that spun carries the
// choices of its spin, which buys it the steps to spin again.
const (
	ReplayStepFloor      = 5_000
	ReplayStepsPerChoice = 4
)

// StepBudget is the step budget of a run drawing from src when
// Options.MaxSteps is 0.
func StepBudget(src choice.Source) int {
	if r, ok := src.(*choice.Replay); ok {
		return min(DefaultMaxSteps, ReplayStepFloor+ReplayStepsPerChoice*r.Len())
	}
	return DefaultMaxSteps
}

// Outcome is one run's verdict.
type Outcome struct {
	Failed    bool
	Kind      string // "invariant", "model-mismatch", "model", "store", "events", "liveness", "linearizability", "recovery", "wire", "world", "setup"
	Message   string
	Steps     int
	TraceHash string
	Trace     *trace.Trace      // when KeepTrace
	Races     map[string]string // row id -> first order taken
	// RaceOrders lists every order seen per row (a run may take both).
	RaceOrders map[string][]string
	Linz       *linz.Recorder // for HTML
	Faults     []string
	// Checks counts the checks that ran (so a pass is never vacuous).
	Checks int
	// TXCompared counts the acknowledged transactions whose write lists were
	// compared with model/lane's, write by write (txcheck.go).
	TXCompared int
	// Structural counts the structural generations that returned and were
	// checked (their (op, resp) pairs are in invariant 11's view).
	Structural int
	// CrashImages holds a hash of the disk after each simulated power loss
	// (faults.CrashReport.Image), for counting distinct crash states.
	CrashImages []uint64
	// Settings are the knobs a swarm seed drew ("" for fixed profiles).
	Settings string
}

// Scenario is one named profile of the runner.
type Scenario struct {
	Name, Description string
	Rows              []string // race rows it targets
	Run               func(src choice.Source, opts Options) Outcome
}

// RaceRow is one row of the seed's race table (plus close-vs-settlement)
// and the two orders a run can take.
type RaceRow struct {
	ID, Name string
	Orders   [2]string
}

// Race row ids.
const (
	RowAppendNext      = "append-vs-next-frame"
	RowAppendSettle    = "append-vs-settlement"
	RowUpdateCommit    = "update-vs-commit"
	RowAppendFinalize  = "append-vs-finalization"
	RowQueuedLoss      = "process-loss-with-queued-writes"
	RowFinalFrame      = "final-frame-vs-settlement"
	RowActivationSnap  = "activation-vs-snapshot"
	RowUnknownRetry    = "unknown-generation-vs-retry"
	RowPollReplacement = "unknown-poll-vs-replacement"
	RowCloseSettle     = "close-vs-settlement"
)

// Race orders: the two ways each row can go (raceRows pairs them with
// their row), named once so the checks that record them cannot drift.
const (
	OrderCommittedBeforeNext     = "committed-before-next"
	OrderNextQueuedBehind        = "next-queued-behind"
	OrderAppendsDoneAtEnd        = "appends-done-at-end"
	OrderSettlementAwaitsAppends = "settlement-awaits-appends"
	OrderEventFirst              = "event-first"
	OrderCommitFirst             = "commit-first"
	OrderAppendFirst             = "append-first"
	OrderFinalizeFirst           = "finalize-first"
	OrderQueueEmpty              = "queue-empty"
	OrderQueuedLost              = "queued-lost"
	OrderSettledInProcess        = "settled-in-process"
	OrderCrashBetween            = "crash-between"
	OrderSnapshotFirst           = "snapshot-first"
	OrderActivationFirst         = "activation-first"
	OrderSyntheticThenRetry      = "synthetic-then-retry"
	OrderSyntheticThenFailAtCap  = "synthetic-then-fail-at-cap"
	OrderSuspendedWithoutPermit  = "suspended-without-permit"
	OrderReplacedAtOnce          = "replaced-at-once"
	OrderCloseFirst              = "close-first"
	OrderSettleFirst             = "settle-first"
)

var raceRows = []RaceRow{
	{RowAppendNext, "frame append vs next frame", [2]string{OrderCommittedBeforeNext, OrderNextQueuedBehind}},
	{RowAppendSettle, "frame append vs stream settlement", [2]string{OrderAppendsDoneAtEnd, OrderSettlementAwaitsAppends}},
	{RowUpdateCommit, "live update event vs frame commit", [2]string{OrderEventFirst, OrderCommitFirst}},
	{RowAppendFinalize, "append vs external finalization", [2]string{OrderAppendFirst, OrderFinalizeFirst}},
	{RowQueuedLoss, "process loss with queued writes", [2]string{OrderQueueEmpty, OrderQueuedLost}},
	{RowFinalFrame, "final frame vs response settlement", [2]string{OrderSettledInProcess, OrderCrashBetween}},
	{RowActivationSnap, "activation vs snapshot", [2]string{OrderSnapshotFirst, OrderActivationFirst}},
	{RowUnknownRetry, "unknown generation vs retry", [2]string{OrderSyntheticThenRetry, OrderSyntheticThenFailAtCap}},
	{RowPollReplacement, "unknown deferred poll vs replacement", [2]string{OrderSuspendedWithoutPermit, OrderReplacedAtOnce}},
	{RowCloseSettle, "close vs settlement", [2]string{OrderCloseFirst, OrderSettleFirst}},
}

// RaceRows lists the race rows in the seed's table order.
func RaceRows() []RaceRow { return append([]RaceRow(nil), raceRows...) }

// BugNames lists every injectable bug: lane.BugNames() plus the JSONL
// store's, sorted.
func BugNames() []string {
	out := append(lane.BugNames(), jsonl.BugNames()...)
	sort.Strings(out)
	return out
}

// Backends lists the storage backends a run can use: every backend of the
// registry (impl/store/backends).
func Backends() []string { return backends.Names() }

// Scenarios lists every scenario.
func Scenarios() []Scenario {
	out := make([]Scenario, 0, len(profiles))
	for _, p := range profiles {
		p := p
		out = append(out, Scenario{Name: p.name, Description: p.desc, Rows: p.rows,
			Run: func(src choice.Source, opts Options) Outcome { return run(p, src, opts) }})
	}
	out = append(out, Scenario{Name: SwarmScenario, Description: swarmDesc, Run: runSwarm})
	return out
}

// ScenarioByName finds a scenario.
func ScenarioByName(name string) (Scenario, bool) {
	for _, s := range Scenarios() {
		if s.Name == name {
			return s, true
		}
	}
	return Scenario{}, false
}

// splitBugs sorts bug names into the lane's and the JSONL store's. Their
// switches exist only in builds with the frameproofbugs tag (bugs_on.go).
func splitBugs(names []string) (laneBugs, storeBugs []string, err error) {
	for _, n := range names {
		switch {
		case slices.Contains(lane.BugNames(), n):
			laneBugs = append(laneBugs, n)
		case slices.Contains(jsonl.BugNames(), n):
			storeBugs = append(storeBugs, n)
		default:
			return nil, nil, &unknownBugError{n}
		}
	}
	if len(names) > 0 && !BugsCompiled() {
		return nil, nil, errBugsNotCompiled
	}
	return laneBugs, storeBugs, nil
}

// errBugsNotCompiled refuses --bug in a build without the switches.
var errBugsNotCompiled = errors.New("lanesim: bug switches are compiled only with -tags " + BugsTag)

// BugsTag is the build tag that compiles the bug switches in.
const BugsTag = "frameproofbugs"

type unknownBugError struct{ name string }

func (e *unknownBugError) Error() string {
	return "lanesim: unknown bug " + e.name + " (known: " + joinNames(BugNames()) + ")"
}

func joinNames(ns []string) string {
	s := ""
	for i, n := range ns {
		if i > 0 {
			s += ", "
		}
		s += n
	}
	return s
}
