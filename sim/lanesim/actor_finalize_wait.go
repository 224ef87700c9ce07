package lanesim

import "github.com/frameproof/frameproof/impl/lane"

// rowFinalizeWaiting records which waiting step the finalizer acted on (a
// coverage row outside the race table: Outcome.RaceOrders reports it).
const (
	rowFinalizeWaiting   = "finalize-vs-waiting-step"
	orderInRetryWait     = "in-retry-wait"
	orderInSuspendedPoll = "in-suspended-poll"
)

// awaitWaitingStep pauses, a bounded number of times, until the current
// operation waits: in assistant.retry_wait (the drive sleeps until
// notBefore) or deferred.suspended, whose poll it then grants a permit.
// The finalizer then removes the operation under the waiting step: the
// retry-ready or poll-intent command that follows must find it gone and
// commit nothing, which an unconditioned pause reaches only by luck.
func (r *runner) awaitWaitingStep() {
	for i := 0; i < 30 && !r.finished && !r.failed; i++ {
		if ln := r.ln; ln != nil {
			if cur := ln.Current(); cur != nil && cur.State.At == lane.LeafAssistantRetryWait {
				r.race(rowFinalizeWaiting, orderInRetryWait)
				return
			}
			if cur := ln.Current(); cur != nil && cur.State.At == lane.LeafDeferredSuspended {
				r.poller.grant() // the driver's poll now races the finalization
				r.race(rowFinalizeWaiting, orderInSuspendedPoll)
				return
			}
		}
		r.pause("finalize-wait", 5)
	}
}
