package lane

// settlementEvents states the events a settlement emits after entry_added
// and usage (pi's runtime/drive/response.ts publishResponse), before any
// run_end. cur is the effect_pending leaf that settled.
//
//   - assistant generation, a live (non-recovery) response:
//     retry_end when a later attempt settled other than into a retry wait;
//     retry_scheduled when it settles into a retry wait; turn_end unless it
//     settles into a retry wait or a tool plan. Recovery responses emit none
//     of these. compaction_start when it settles into summary.deciding
//     (an overflow), recovery or not.
//   - deferred poll: turn_end (recovery-tagged like the poll) unless it
//     settles into a tool plan.
//   - run_suspend when the run suspends on a deferred handle: after a poll,
//     or after a live generation (recovery-tagged only after a poll).
func (m *Model) settlementEvents(cur Op, d outcome, recovery bool) {
	next := ""
	if d.next != nil {
		next = d.next.At
	}
	if cur.At == AtEffectPending {
		live := !recovery
		if live && cur.Attempt > 1 && next != AtRetryWait {
			m.emit("retry_end", false)
		}
		if live && next == AtRetryWait {
			m.emit("retry_scheduled", false)
		}
		if live && next != AtTools && next != AtRetryWait {
			m.emit("turn_end", false)
		}
		if next == AtSummaryDeciding {
			m.emit("compaction_start:overflow", false)
		}
	} else if next != AtTools {
		m.emit("turn_end", recovery)
	}
	poll := cur.At == AtDeferredEffect
	if (poll || !recovery) && next == AtDeferredSuspend && d.committed.Deferred != nil {
		m.emit("run_suspend", recovery && poll)
	}
}
