package lanesim

import (
	"slices"

	"github.com/frameproof/frameproof/impl/lane"
	"github.com/frameproof/frameproof/impl/store"
	"github.com/frameproof/frameproof/sim/campaign"
	"github.com/frameproof/frameproof/sim/choice"
)

// The reach registry (issue 25 item 5): inputs the swarm's generators must
// reach in a default campaign besides the race table's orders, each a
// (row, order) the runs report in Outcome.RaceOrders. `frameproof sim`
// prints how many runs reached each; reach_test.go fails when a
// default-sized swarm campaign stops reaching one.
var reachItems = []campaign.ReachItem{
	{Row: rowToolResultShape, Order: orderResultEmpty, Name: "tool result with no content"},
	{Row: rowToolResultShape, Order: orderResultImagesOnly, Name: "tool result with images only"},
	{Row: rowThinkingShape, Order: orderRedactedAtEnd, Name: "thinking end redacted unlike its start"},
	{Row: rowToolBatch, Order: orderResumedStaged, Name: "resumed parallel batch with a staged outcome"},
	{Row: rowListRead, Order: orderPastFirstPage, Name: "frame list read past its first page"},
	{Row: rowBranchFork, Order: orderForkAtTip, Name: "branch fork at the tip"},
	{Row: rowBranchFork, Order: orderForkAtOlder, Name: "branch fork at an older entry"},
	{Row: rowBranchFork, Order: orderForkBeforeEntry, Name: "branch fork before an entry"},
}

// drawReach draws the swarm settings that aim at the reach registry, last
// in swarmProfile so the draws before keep their seeds' values. Each is
// on in a fraction of the seeds: rare per run, reliable per campaign,
// and no cost to the runs that draw it off.
func drawReach(src choice.Source, p *profile) {
	p.gen.midBlockRedaction = choice.Chance(src, "swarm: mid-block redaction", 1, 4)
	p.gen.textlessResults = choice.Chance(src, "swarm: text-less tool results", 1, 4)
	p.reach.framePage = choice.Pick(src, "swarm: frame page size", []int{0, 0, 1, 2, 3})
	// a staged outcome needs a parallel batch of two calls or more that
	// runs: the seed gives up deferred responses, provider errors and the
	// actors that end runs early (its aimed crash is its fault)
	if p.reach.crashAtStaged = !p.sequentialTools && choice.Chance(src, "swarm: crash at a staged outcome", 1, 3); p.reach.crashAtStaged {
		p.deferred, p.pollCrash, p.badHandle = false, false, false
		p.gen.toolBatches, p.gen.errorWeight = true, 0
		p.crashes, p.canceller, p.finalizer, p.lostFaults, p.closer, p.storageFaults = 0, false, false, false, false, 0
	}
	// fork-migration seeds also fork the lane's branch with pi's other
	// options (scope "branch", an older entry, position "before")
	if p.forkMigrate && choice.Chance(src, "swarm: branch fork", 1, 2) {
		p.reach.branchFork = &branchForkDraw{
			back:   choice.Range(src, "swarm: branch fork entries back", 0, 2),
			before: choice.Bool(src, "swarm: branch fork before"),
		}
	}
}

// ReachItems lists the reach registry, in order.
func ReachItems() []campaign.ReachItem { return append([]campaign.ReachItem(nil), reachItems...) }

// reachProfile is what drawReach adds to a swarm profile besides the
// provider's features (genOpts).
type reachProfile struct {
	// crashAtStaged crashes the process once, at the first commit that
	// leaves a parallel batch with an outcome_ready call behind a call
	// whose effect is still pending, so the next process resumes the
	// batch with the call's outcome staged (rowToolBatch)
	crashAtStaged bool
	// framePage is lane.Config.FramePageSize (0: pi's 1000): small pages
	// make recovery and snapshots follow the cursor past a first page
	// (rowListRead)
	framePage int
	// branchFork forks the lane's branch beside the idle tree fork
	// (check_forkbranch.go; nil: no branch fork) (rowBranchFork)
	branchFork *branchForkDraw
}

// reachState is a run's bookkeeping for the reach registry.
type reachState struct {
	stagedCrashed bool     // crashAtStaged's crash was started
	stagedAtCrash []string // stagedBehind at the last crash
}

// rowToolBatch records a tool batch resumed by a later process with a call
// whose outcome an earlier process staged (outcome_ready) behind a pending
// one, materialized by the resumed batch (orderResumedStaged).
const (
	rowToolBatch       = "tool-batch"
	orderResumedStaged = "resumed-outcome-ready"
)

// committedState is the op state a commit sets (nil: none).
func (r *runner) committedState(ws []store.Write) *lane.OpState {
	for _, w := range ws {
		if w.Kind == store.WriteValue && w.Namespace == lane.NSOpState && w.Op == store.OpSet {
			st, _ := r.memo.decodeState(w.Value)
			return st
		}
	}
	return nil
}

// noteStagedCommit records rowToolBatch when the result entry of a call
// staged at the last crash commits, and aims crashAtStaged's crash at a
// staged outcome behind a pending call.
func (r *runner) noteStagedCommit(ws []store.Write) {
	for _, w := range ws {
		if len(r.reach.stagedAtCrash) > 0 && w.Kind == store.WriteEntry && w.Entry != nil && slices.Contains(r.reach.stagedAtCrash, w.Entry.ID) {
			r.race(rowToolBatch, orderResumedStaged) // placed by the resumed batch
			r.reach.stagedAtCrash = nil
		}
	}
	st := r.committedState(ws)
	if st == nil {
		return
	}
	if !r.p.reach.crashAtStaged || r.reach.stagedCrashed || !stagedBesidePending(st) {
		return
	}
	r.reach.stagedCrashed = true
	r.w.Root().Go("staged-crasher", func() { r.crashAndRestart("crash at a staged tool outcome of", true) })
}

// stagedBesidePending: the batch has an outcome_ready call behind a call
// whose effect is pending (a later call ended first).
func stagedBesidePending(st *lane.OpState) bool {
	return len(stagedBehind(st)) > 0
}

// stagedBehind lists the result entry ids of the outcome_ready calls
// behind a call whose effect is pending: the resumed batch's
// materialization cannot place them before its loop, which must leave
// them staged (a staged call first in line is placed before the loop).
func stagedBehind(st *lane.OpState) []string {
	var out []string
	pending := false
	for _, c := range st.Calls {
		pending = pending || c.Status == lane.CallEffectPending
		if pending && c.Status == lane.CallOutcomeReady {
			out = append(out, c.ResultEntryID)
		}
	}
	return out
}

// noteCrashStaged remembers, at a crash, the reference's staged calls
// behind a pending one.
func (r *runner) noteCrashStaged() {
	r.reach.stagedAtCrash = nil
	if _, st := r.refOp(); st != nil {
		r.reach.stagedAtCrash = stagedBehind(st)
	}
}

// rowListRead records a list read whose cursor follows a page
// (orderPastFirstPage): the lane's frame reads, as the store sees them.
const (
	rowListRead        = "list-read"
	orderPastFirstPage = "past-first-page"
)

// ReadList notes a read past a first page and reads on.
func (s *simStore) ReadList(a store.Address, o store.ReadOptions) ([]store.ListElement, error) {
	if o.Cursor != nil {
		s.r.race(rowListRead, orderPastFirstPage)
	}
	return s.Storage.ReadList(a, o)
}
