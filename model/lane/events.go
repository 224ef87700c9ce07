package lane

import (
	"math"
	"strconv"

	"github.com/frameproof/frameproof/impl/pi"
)

// The events whose members the lockstep compares are written with them:
// run_end with its result record's (runtime/drive/response.ts,
// boundary.ts, reconcile.ts), compaction_start with its startedAt, and the
// retry events with pi's step, attempt and wait (response.ts
// publishResponse, generation.ts runRetryWait). A comparison writes an
// implementation's event with the same functions.

func evNum(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }

// commitTime is the timestamp of the transaction the input stands for.
func (m *Model) commitTime() float64 {
	if m.cfg.CommitTime != nil {
		return m.cfg.CommitTime()
	}
	return m.now()
}

func nullID(id string) string {
	if id == "" {
		return "null"
	}
	return id
}

// RunEndEvent is run_end {status, error?, fromTipId, tipId, endedAt} of
// the result r ("" tips are null; an error with its code, message and
// canonical details when the result has one).
func RunEndEvent(r Result, endedAt float64) string {
	s := "run_end:" + r.Status
	if r.ErrorCode != "" || r.ErrorMessage != "" {
		s += " error=" + strconv.Quote(r.ErrorCode) + "/" + strconv.Quote(r.ErrorMessage)
		if r.ErrorDetails != "" {
			s += "/" + r.ErrorDetails
		}
	}
	return s + " fromTipId=" + nullID(r.FromTipID) + " tipId=" + nullID(r.TipID) + " endedAt=" + evNum(endedAt)
}

// CompactionStartEvent is compaction_start {reason, startedAt}.
func CompactionStartEvent(reason string, startedAt float64) string {
	return "compaction_start:" + reason + " startedAt=" + evNum(startedAt)
}

// RetryScheduledEvent is retry_scheduled {step, attempt (the next),
// maxAttempts, delayMs, notBefore, errorMessage}.
func RetryScheduledEvent(step string, attempt, maxAttempts int, delayMs, notBefore float64, errorMessage string) string {
	return "retry_scheduled step=" + step + " attempt=" + strconv.Itoa(attempt) + "/" + strconv.Itoa(maxAttempts) +
		" delayMs=" + evNum(delayMs) + " notBefore=" + evNum(notBefore) + " error=" + strconv.Quote(errorMessage)
}

// RetryStartEvent is retry_start {step, attempt}.
func RetryStartEvent(step string, attempt int) string {
	return "retry_start step=" + step + " attempt=" + strconv.Itoa(attempt)
}

// RetryEndEvent is retry_end {step, attempt, success, finalError?}.
func RetryEndEvent(step string, attempt int, success bool, finalError *string) string {
	s := "retry_end step=" + step + " attempt=" + strconv.Itoa(attempt) + " success=" + strconv.FormatBool(success)
	if finalError != nil {
		s += " finalError=" + strconv.Quote(*finalError)
	}
	return s
}

// emitRunEnd emits run_end for op's result, ended now.
func (m *Model) emitRunEnd(op string) {
	m.emit(RunEndEvent(m.st.Results[op], m.now()), false)
}

// retryDelay is the wait before the attempt after attempt: pi's
// retryDelay (runtime/drive/retry.ts, base·2^(attempt-1), the safe
// integer cap), capped as the retry wait's notBefore is.
func retryDelay(baseDelayMs float64, limit *float64, attempt int) float64 {
	d := baseDelayMs * math.Pow(2, float64(max(0, attempt-1)))
	if d != math.Trunc(d) || math.Abs(d) > maxSafeInteger {
		d = maxSafeInteger
	}
	limitMs := float64(defaultMaxAgentDelayMs)
	if limit != nil {
		limitMs = *limit
	}
	return math.Min(d, limitMs)
}

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
func (m *Model) settlementEvents(op string, cur Op, d outcome, recovery bool) {
	next := ""
	if d.next != nil {
		next = d.next.At
	}
	run := m.ops[op].run
	if cur.At == AtEffectPending {
		live := !recovery
		if live && cur.Attempt > 1 && next != AtRetryWait {
			c := d.committed
			success := c.StopReason != pi.StopError && c.StopReason != pi.StopAborted
			var final *string
			if !success {
				msg := "Assistant request ended with " + string(c.StopReason)
				if c.ErrorMessage != nil {
					msg = *c.ErrorMessage
				}
				final = &msg
			}
			m.emit(RetryEndEvent(run.StepID, cur.Attempt, success, final), false)
		}
		if live && next == AtRetryWait {
			m.emit(RetryScheduledEvent(run.StepID, d.next.NextAttempt, run.MaxAttempts,
				retryDelay(run.BaseDelayMs, m.delayCap(run), cur.Attempt), d.next.NotBefore, d.next.RetryError), false)
		}
		if live && next != AtTools && next != AtRetryWait {
			m.emit("turn_end", false)
		}
		if next == AtSummaryDeciding {
			m.emit(CompactionStartEvent("overflow", m.commitTime()), false)
		}
	} else if next != AtTools {
		m.emit("turn_end", recovery)
	}
	poll := cur.At == AtDeferredEffect
	if (poll || !recovery) && next == AtDeferredSuspend && d.committed.Deferred != nil {
		m.emit("run_suspend", recovery && poll)
	}
}
