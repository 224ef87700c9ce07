package lanesim

import (
	"errors"
	"fmt"
	"slices"

	"github.com/frameproof/frameproof/impl/lane"
	"github.com/frameproof/frameproof/impl/pi"
	ml "github.com/frameproof/frameproof/model/lane"
	"github.com/frameproof/frameproof/sim/campaign"
	"github.com/frameproof/frameproof/sim/choice"
)

// simRetryCapMs caps retry delays below the second backoff (100 ms), so the
// campaign runs pi-ai's Math.min cap and the persisted maxAgentDelayMs.
const simRetryCapMs = 75.0

// simCompaction is the runs' settings.compaction: pi's defaults but for a
// small keepRecentTokens, so an overflow's preparation cuts the simulated
// transcripts (a few tokens per message) at varying places.
var simCompaction = ml.Compaction{Enabled: true, ReserveTokens: 16384, KeepRecentTokens: 8}

func (r *runner) runOptions() lane.RunOptions {
	c := simCompaction
	settings, err := pi.ParseJSON(fmt.Sprintf(`{"compaction":{"enabled":%t,"reserveTokens":%v,"keepRecentTokens":%v}%s}`,
		c.Enabled, c.ReserveTokens, c.KeepRecentTokens, r.p.queueSettings()))
	if err != nil {
		panic(err) // a constant
	}
	o := r.runOptionsUnset()
	o.Settings = settings
	return o
}

// runOptionsUnset is runOptions without its Settings (which only a run's
// start reads): generation, at every process start, takes the rest.
func (r *runner) runOptionsUnset() lane.RunOptions {
	limit := simRetryCapMs
	return lane.RunOptions{UserText: "question", Configuration: r.runConfiguration(),
		RetryPolicy: lane.RetryPolicy{MaxAttempts: r.p.maxAttempts, BaseDelayMs: 50, MaxAgentDelayMs: &limit}}
}

// simConfigurations are the lane configurations a swarm seed may start its
// runs with (profile.runConfigs). pi's setters change the model, the
// thinking level and the active tools (runtime/lane.ts setConfiguration);
// the simulated provider answers as one model (its deferred handles and
// the wire check name it), so these differ in the other two.
var simConfigurations = []lane.Configuration{
	{ThinkingLevel: "off", ActiveToolNames: simActiveTools},
	{ThinkingLevel: "high", ActiveToolNames: simActiveTools},
	{ThinkingLevel: "off", ActiveToolNames: []string{toolRead}},
	{ThinkingLevel: "low", ActiveToolNames: []string{toolRead, toolWrite}},
}

// runConfiguration is the configuration of the run the driver starts next
// (the one after as many as have results): the first of
// simConfigurations unless the profile drew one per run. A run that
// brings another configuration than the lane's commits it first
// (impl/lane/laneconfig.go acquire, pi's setConfiguration).
func (r *runner) runConfiguration() lane.Configuration {
	c := simConfigurations[0]
	if k := r.resultsCount(); k < len(r.p.runConfigs) {
		c = simConfigurations[r.p.runConfigs[k]]
	}
	c.Model = lane.ModelRef{Provider: simProvider, ModelID: simModel}
	c.ActiveToolNames = slices.Clone(c.ActiveToolNames)
	return r.p.withUnavailable(r.resultsCount(), c)
}

// generation is the lane configuration a reopened process reads at a run
// boundary: every run of a campaign uses runOptions' (pi's lane
// configuration, which is durable there, stays the same across restarts).
func (r *runner) generation() *lane.GenerationConfig {
	o := r.runOptionsUnset()
	return &lane.GenerationConfig{Configuration: o.Configuration, StreamOptions: o.StreamOptions, RetryPolicy: o.RetryPolicy}
}

// driver drives the lane until every planned operation has settled.
func (r *runner) driver() {
	ln := r.ln
	for iter := 0; ; iter++ {
		if iter > 200 {
			r.fail(campaign.KindLiveness, "driver made %d steps without settling", iter)
			return
		}
		cur := ln.Current()
		if cur == nil {
			if r.resultsCount() >= r.p.ops {
				r.doneFut.Resolve(nil)
				return
			}
			if _, err := r.ls.startRun(func() (string, error) { return ln.StartRun(r.runOptions()) }); err != nil {
				r.laneError(err)
				return
			}
			continue // the client fold follows the run from its run_start
		}
		if cur.ID == r.stuck {
			if !r.finalizeStuck() {
				return
			}
			continue
		}
		r.maybeCancelOrphanedTool(cur)
		permit := false
		if cur.State.At == lane.LeafDeferredSuspended || cur.State.At == lane.LeafDeferredEffectPending {
			r.maybeCancelBadSource(cur)
			permit = r.poller.take()
		}
		res, err, ok := r.ls.step(permit, func() (lane.StepResult, error) {
			return ln.Step(lane.StepOptions{DeferredPermit: permit, WaitForRetry: true})
		})
		if !ok || (err == nil && r.closing) {
			return // a close in progress: the model resyncs at restart and a new driver drives on
		}
		if err != nil {
			r.laneError(err)
			return
		}
		if r.p.snapshots > 0 && choice.Chance(r.w, "driver-snapshot", 1, 3) {
			r.snapshotNow("driver")
		}
		if res.Kind == lane.StepWaiting {
			switch res.Reason {
			case "deferred":
				r.poller.wait(cur)
			case "tools":
				// the tool runner is out of scope: it finishes the operation
				r.ls.issueFinalize("completed", nil)
				if err := ln.Finalize("completed", nil); err != nil && !errors.Is(err, lane.ErrNoOperation) {
					r.laneError(err)
					return
				}
			default:
				oe := &lane.OpError{Code: "sim", Message: res.Reason}
				r.ls.issueFinalize("failed", oe)
				if err := ln.Finalize("failed", oe); err != nil && !errors.Is(err, lane.ErrNoOperation) {
					r.laneError(err)
					return
				}
			}
		}
	}
}

// laneError handles a lane call's error in the driver: an injected storage
// fault faults the process, which a supervisor restarts; closing is the
// closer's business; anything else is a failure.
func (r *runner) laneError(err error) {
	var hf *lane.HarnessFault
	switch {
	case errors.Is(err, lane.ErrClosed) && r.closing:
		return
	case errors.As(err, &hf) && (r.injected || r.stuck != ""):
		r.faultPending = false
		gen := r.gen
		r.w.Root().Go("supervisor", func() {
			if r.gen == gen { // not restarted meanwhile by someone else
				r.crashAndRestart("restart after storage fault of", r.be.simulatesDisk())
			}
		})
	default:
		r.fail(campaign.KindInvariant, "lane error in process %d: %v", r.gen, err)
	}
}

// resultsCount is the number of operation results the reference holds
// (specStore.results).
func (r *runner) resultsCount() int { return r.ref.results() }

// maybeCancelBadSource: a client cancels, at times, a run that a poll left
// suspended on a handle pi refuses (only badHandle polls answer deferred
// again, so poll > 0 marks one), before the driver's next step: the
// reconciliation reads the source handle and faults (pi's
// reconcile.ts reconcileOperation) rather than abort the run.
func (r *runner) maybeCancelBadSource(cur *lane.Operation) {
	if !r.p.badHandle || cur.State.At != lane.LeafDeferredSuspended || cur.State.Poll == 0 ||
		cur.State.Control.CancelRequested || !choice.Chance(r.w, "bad-handle-cancel", 1, 2) {
		return
	}
	r.requestCancel()
}

// maybeCancelOrphanedTool: a client cancels, at times, a tool batch a
// crash interrupted (a call still effect_pending at dispatch: one Step runs
// a whole batch, so only a lost process leaves one), before the driver's
// next step: runtime/drive/tools.ts runSequential then settles that call
// as interrupted with its stored checkpoint (readCheckpoint) instead of
// recovering it (recoverToolInvocation).
func (r *runner) maybeCancelOrphanedTool(cur *lane.Operation) {
	if cur.State.At != lane.LeafTools || cur.State.Control.CancelRequested || !hasEffectPendingCall(cur.State) ||
		!choice.Chance(r.w, "cancel-orphaned-tool", 1, 3) {
		return
	}
	r.requestCancel()
}

func hasEffectPendingCall(s *lane.OpState) bool {
	for _, c := range s.Calls {
		if c.Status == lane.CallEffectPending {
			return true
		}
	}
	return false
}

// finalizeStuck finalizes, as failed, the operation whose source handle
// faulted the previous process (the external finalization is the only way
// out: every step of it faults); false when the driver must stop.
func (r *runner) finalizeStuck() bool {
	oe := &lane.OpError{Code: "sim", Message: "deferred source handle refused"}
	r.ls.issueFinalize("failed", oe)
	if err := r.ln.Finalize("failed", oe); err != nil && !errors.Is(err, lane.ErrNoOperation) {
		r.laneError(err)
		return false
	}
	r.stuck = ""
	return true
}
