package subject

import (
	"encoding/json"
	"fmt"

	"github.com/frameproof/frameproof/impl/pi"
	ml "github.com/frameproof/frameproof/model/lane"
	"github.com/frameproof/frameproof/sim/choice"
	"github.com/frameproof/frameproof/sim/lanesim"
)

// Deferred responses and their polls (Scenario.Deferred), as pi runs them
// (runtime/drive/deferred.ts): a response that ends with stopReason
// "deferred" and a handle suspends the operation (deferred.suspended); a
// drive that carries a poll permit — pi's Lane.resume, the only call that
// passes pollDeferred — commits a poll intent (deferred.effect_pending,
// fresh response and usage ids) and streams the handle's outcome through
// the provider's fetchDeferred; a drive without one (Lane.drive, or the
// prompt's own) reports waiting{reason:"deferred"} and commits nothing.
//
// Row unknown-poll-vs-replacement: the process dies while a poll streams,
// so the next process restores an orphaned deferred.effect_pending whose
// outcome is unknown. Either its first drive carries no permit and pi
// reports the orphan waiting (suspended-without-permit: Lane.drive), or it
// carries one and pi replaces the poll at once under fresh ids, its intent
// deleting the orphan's frames (replaced-at-once: Lane.resume). Both are
// pi's public Lane API; a memory session cannot take either, its storage
// being lost with the process.

// maxDeferredEnds bounds a run's deferred responses, so its operation
// completes within the action budget.
const maxDeferredEnds = 3

// deferredHandle is the handle a scripted deferred response carries: pi's
// readDeferredSourceHandle accepts it only when provider, modelId and api
// name the operation's model and its id is not empty.
func deferredHandle(n int) *pi.DeferredHandle {
	return &pi.DeferredHandle{Provider: Provider, ModelID: modelID, API: scriptAPI, ID: fmt.Sprintf("handle-%d", n)}
}

// deferEnding turns a response's done event into pi-ai's deferred ending:
// stopReason "deferred" with the handle on the final message.
func deferEnding(evs []*pi.Event, h *pi.DeferredHandle) []*pi.Event {
	last := evs[len(evs)-1]
	if last.Type != pi.EventDone {
		return evs // an error ending stays an error
	}
	last.Reason = pi.StopDeferred
	last.Message.StopReason = pi.StopDeferred
	last.Message.Deferred = h
	return evs
}

// deferNext draws whether the next scripted response ends deferred: the
// run's first always (there is a poll to make), later ones by chance.
func (r *runner) deferNext() bool {
	if !r.sc.Deferred || r.deferredEnds >= maxDeferredEnds {
		return false
	}
	if r.deferredEnds > 0 && !choice.Chance(r.src, "script deferred", 1, 3) {
		return false
	}
	r.deferredEnds++
	return true
}

// deferredLeaf reports whether the current operation's committed leaf is
// a deferred one.
func (r *runner) deferredLeaf() bool {
	op, ok := r.committedOp()
	return ok && (op.At == ml.AtDeferredSuspend || op.At == ml.AtDeferredEffect)
}

// polling reports whether the live stream is a deferred poll's.
func (r *runner) polling() bool {
	return r.o.liveResp != "" && r.o.plan != nil && r.o.plan.Kind == "poll"
}

// restoredPoll notes, at a reopen, an orphaned poll the new process
// restored (the row's subject).
func (r *runner) restoredPoll() {
	r.orphanPoll = ""
	if op, ok := r.committedOp(); ok && op.At == ml.AtDeferredEffect {
		r.orphanPoll = op.ResponseEntryID
	}
}

// driveReturned records suspended-without-permit when a drive without a
// permit reported the restored orphan waiting.
func (r *runner) driveReturned(c CallResult) error {
	var res struct {
		OK    bool `json:"ok"`
		Value struct {
			Kind   string `json:"kind"`
			Reason string `json:"reason"`
		} `json:"value"`
	}
	if !c.OK {
		return fmt.Errorf("subject: Lane.drive failed: %s", c.Error)
	}
	if err := json.Unmarshal(c.Value, &res); err != nil {
		return fmt.Errorf("subject: Lane.drive's result %s: %w", c.Value, err)
	}
	waiting := res.OK && res.Value.Kind == "waiting" && res.Value.Reason == "deferred"
	if r.orphanPoll != "" && waiting {
		r.race(lanesim.RowPollReplacement, lanesim.OrderSuspendedWithoutPermit)
		r.orphanPoll = ""
	}
	if !waiting {
		// model/lane: a deferred leaf's step without a permit commits
		// nothing and waits (runtime/drive/deferred.ts pollDeferred)
		return fmt.Errorf("subject: Lane.drive without a poll permit on a deferred leaf returned %s, want waiting{reason:\"deferred\"}", c.Value)
	}
	return nil
}

// pollIntent records replaced-at-once when the first poll intent after
// the reopen replaces the restored orphan.
func (r *runner) pollIntent(ws []Write) {
	if r.orphanPoll == "" {
		return
	}
	if _, st, err := opStateIn(ws); err == nil && st != nil && st.At == ml.AtDeferredEffect && st.ResponseEntryID != r.orphanPoll {
		r.race(lanesim.RowPollReplacement, lanesim.OrderReplacedAtOnce)
		r.orphanPoll = ""
	}
}
