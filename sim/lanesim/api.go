package lanesim

import (
	"errors"
	"slices"
	"sort"

	"github.com/frameproof/frameproof/impl/lane"
	"github.com/frameproof/frameproof/impl/store/backends"
	"github.com/frameproof/frameproof/impl/store/fork"
	"github.com/frameproof/frameproof/impl/store/jsonl"
	"github.com/frameproof/frameproof/sim/campaign"
	"github.com/frameproof/frameproof/sim/choice"
)

// Options configure one run (Backend: a name from Backends(), default
// memory; Bugs: names from BugNames(); TempDir: unused, every backend
// simulates in memory or on faults.FS).
// The type is the campaign's, so a lanesim scenario is a campaign.Scenario.
type Options = campaign.RunOptions

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

// Outcome is one run's verdict. Kind is a campaign.FailureKind (the
// constants of sim/campaign kinds.go say which checks report each);
// TXCompared counts
// the acknowledged transactions whose write lists were compared with
// model/lane's (check_tx.go), Structural the structural generations checked.
type Outcome = campaign.Outcome

// Scenario is one named profile of the runner.
type Scenario = campaign.Scenario

// RaceRow is one row of the seed's race table (plus close-vs-settlement)
// and the two orders a run can take.
type RaceRow = campaign.RaceRow

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
	row(RowAppendNext, "frame append vs next frame", OrderCommittedBeforeNext, OrderNextQueuedBehind),
	row(RowAppendSettle, "frame append vs stream settlement", OrderAppendsDoneAtEnd, OrderSettlementAwaitsAppends),
	row(RowUpdateCommit, "live update event vs frame commit", OrderEventFirst, OrderCommitFirst),
	row(RowAppendFinalize, "append vs external finalization", OrderAppendFirst, OrderFinalizeFirst),
	row(RowQueuedLoss, "process loss with queued writes", OrderQueueEmpty, OrderQueuedLost),
	row(RowFinalFrame, "final frame vs response settlement", OrderSettledInProcess, OrderCrashBetween),
	row(RowActivationSnap, "activation vs snapshot", OrderSnapshotFirst, OrderActivationFirst),
	row(RowUnknownRetry, "unknown generation vs retry", OrderSyntheticThenRetry, OrderSyntheticThenFailAtCap),
	row(RowPollReplacement, "unknown deferred poll vs replacement", OrderSuspendedWithoutPermit, OrderReplacedAtOnce),
	row(RowCloseSettle, "close vs settlement", OrderCloseFirst, OrderSettleFirst),
}

func row(id, name, first, second string) RaceRow {
	return RaceRow{ID: id, Name: name, Orders: [2]string{first, second}}
}

// RaceRows lists the race rows in the seed's table order.
func RaceRows() []RaceRow { return append([]RaceRow(nil), raceRows...) }

// BugNames lists every injectable bug: lane.BugNames() plus the JSONL
// store's and the fork snapshot's (impl/store/fork), sorted.
func BugNames() []string {
	out := append(append(lane.BugNames(), jsonl.BugNames()...), fork.BugNames()...)
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

// splitBugs sorts bug names into the lane's, the JSONL store's and the
// fork snapshot's. Their switches exist only in builds with the
// frameproofbugs tag (bugs_on.go).
func splitBugs(names []string) (b bugSets, err error) {
	for _, n := range names {
		switch {
		case slices.Contains(lane.BugNames(), n):
			b.lane = append(b.lane, n)
		case slices.Contains(jsonl.BugNames(), n):
			b.store = append(b.store, n)
		case slices.Contains(fork.BugNames(), n):
			b.fork = append(b.fork, n)
		default:
			return bugSets{}, &unknownBugError{n}
		}
	}
	if len(names) > 0 && !BugsCompiled() {
		return bugSets{}, errBugsNotCompiled
	}
	return b, nil
}

// bugSets are a run's bug names by the package that switches them.
type bugSets struct{ lane, store, fork []string }

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
