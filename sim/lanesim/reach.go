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
}

// drawReach draws the swarm settings that aim at the reach registry, last
// in swarmProfile so the draws before keep their seeds' values. Each is
// on in a fraction of the seeds: rare per run, reliable per campaign,
// and no cost to the runs that draw it off.
func drawReach(src choice.Source, p *profile) {
	p.gen.midBlockRedaction = choice.Chance(src, "swarm: mid-block redaction", 1, 4)
	p.gen.textlessResults = choice.Chance(src, "swarm: text-less tool results", 1, 4)
	// a staged outcome needs a parallel batch of two calls or more that
	// runs: the seed gives up deferred responses for it
	if p.reach.crashAtStaged = !p.sequentialTools && choice.Chance(src, "swarm: crash at a staged outcome", 1, 4); p.reach.crashAtStaged {
		p.deferred, p.pollCrash, p.badHandle = false, false, false
		p.gen.toolBatches = true
	}
}

// ReachItems lists the reach registry, in order.
func ReachItems() []campaign.ReachItem { return append([]campaign.ReachItem(nil), reachItems...) }

// reachProfile is what drawReach adds to a swarm profile besides the
// provider's features (genOpts).
type reachProfile struct {
	// crashAtStaged crashes the process once, at the first commit that
	// leaves a parallel batch with an outcome_ready call while another
	// call's effect is still pending, so the next process resumes the
	// batch with the call's outcome staged (rowToolBatch)
	crashAtStaged bool
}

// reachState is a run's bookkeeping for the reach registry.
type reachState struct {
	stagedCrashed bool     // crashAtStaged's crash was started
	stagedAtCrash []string // result entry ids of calls outcome_ready at the last crash
}

// rowToolBatch records a tool batch resumed by a later process with a call
// whose outcome an earlier process staged (outcome_ready), materialized
// by the resumed batch (orderResumedStaged).
const (
	rowToolBatch       = "tool-batch"
	orderResumedStaged = "resumed-outcome-ready"
)

// committedState is the op state a commit sets (nil: none).
func (r *runner) committedState(ws []store.Write) *lane.OpState {
	for _, w := range ws {
		if w.Kind == store.WriteValue && w.Namespace == lane.NSOpState && w.Op == store.OpSet {
			st, _ := r.decodeState(w.Value)
			return st
		}
	}
	return nil
}

// noteStagedCommit aims crashAtStaged's crash at a staged outcome beside a
// pending call, and records rowToolBatch when a call staged at the last
// crash completes.
func (r *runner) noteStagedCommit(ws []store.Write) {
	st := r.committedState(ws)
	if st == nil {
		return
	}
	if len(r.reach.stagedAtCrash) > 0 {
		for _, c := range st.Calls {
			if c.Status == lane.CallCompleted && slices.Contains(r.reach.stagedAtCrash, c.ResultEntryID) {
				r.race(rowToolBatch, orderResumedStaged)
				r.reach.stagedAtCrash = nil
				break
			}
		}
	}
	if !r.p.reach.crashAtStaged || r.reach.stagedCrashed || !stagedBesidePending(st) {
		return
	}
	r.reach.stagedCrashed = true
	r.w.Root().Go("staged-crasher", func() { r.crashAndRestart("crash at a staged tool outcome of", true) })
}

// stagedBesidePending: the batch has an outcome_ready call and a call
// whose effect is pending.
func stagedBesidePending(st *lane.OpState) bool {
	staged, pending := false, false
	for _, c := range st.Calls {
		staged = staged || c.Status == lane.CallOutcomeReady
		pending = pending || c.Status == lane.CallEffectPending
	}
	return staged && pending
}

// noteCrashStaged remembers, at a crash, the calls the reference's current
// operation has outcome_ready.
func (r *runner) noteCrashStaged() {
	r.reach.stagedAtCrash = nil
	if _, st := r.refOp(); st != nil {
		for _, c := range st.Calls {
			if c.Status == lane.CallOutcomeReady {
				r.reach.stagedAtCrash = append(r.reach.stagedAtCrash, c.ResultEntryID)
			}
		}
	}
}
