package lanesim

import "github.com/frameproof/frameproof/impl/lane"

// awaitWaitingStep pauses, a bounded number of times, until the current
// operation waits: in assistant.retry_wait (the drive sleeps until
// notBefore) or deferred.suspended (its poll waits for a permit). The
// finalizer then removes the operation under the waiting step: the
// retry-ready or poll-intent command that follows must find it gone and
// commit nothing, which an unconditioned pause reaches only by luck.
func (r *runner) awaitWaitingStep() {
	for i := 0; i < 30 && !r.finished && !r.failed; i++ {
		if ln := r.ln; ln != nil {
			if cur := ln.Current(); cur != nil && (cur.State.At == lane.LeafAssistantRetryWait || cur.State.At == lane.LeafDeferredSuspended) {
				return
			}
		}
		r.pause("finalize-wait", 5)
	}
}
