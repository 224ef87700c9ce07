package lane

import (
	"math"

	"github.com/frameproof/frameproof/impl/pi"
)

// Exact classification strings (pi's response.ts).
const (
	msgInvalidDeferred = "Provider returned an invalid deferred handle"
	msgToolUseNoCalls  = "Provider reported tool use without any tool calls"
	msgRetryDefault    = "Assistant request failed"
	codeAssistantError = "assistant_error"
)

// outcome is what settling one response does: the message that commits and
// either the next leaf or a terminal failure.
type outcome struct {
	committed *pi.AssistantMessage
	next      *Op // nil: terminal failure
	failCode  string
	failMsg   string
	// fault: the response cannot be classified; the lane faults instead of
	// committing (pi's SessionInvariantError).
	fault string
}

// classify states pi's first-match-wins rules (runtime/drive/response.ts
// publishResponse) for the leaves driven here. The model's runs have no
// context window and no intended output limit, so of the overflow tests
// only the error-text rows can fire; pi then settles into summary.deciding
// with a compaction preparation, or fails the run when there is nothing to
// compact (runtime/drive/structural.ts prepareOverflowCompaction).
func (m *Model) classify(cur Op, info *opInfo, resp *pi.AssistantMessage, recovery bool) outcome {
	source := "Deferred"
	if cur.At == AtEffectPending {
		source = "Assistant"
	}
	c := resp.Clone()
	base := Op{At: "", CancelRequested: cur.CancelRequested, RequestedAt: cur.RequestedAt, LatestAssistantEntryID: cur.ResponseEntryID}
	fail := func(m *pi.AssistantMessage) outcome {
		msg := source + " request ended with " + string(m.StopReason)
		if m.ErrorMessage != nil {
			msg = *m.ErrorMessage
		}
		return outcome{committed: c, failCode: codeAssistantError, failMsg: msg}
	}
	next := func(o Op) outcome { return outcome{committed: c, next: &o} }
	checkpoint := base
	checkpoint.At = AtCheckpoint

	// 1. Cancellation wins, even over complete-looking content.
	cancelled := cur.CancelRequested
	if m.cfg.Mutant == MutantCompleteBeatsCancel && resp.StopReason != pi.StopError && resp.StopReason != pi.StopAborted {
		cancelled = false // deliberately wrong variant for mutation tests
	}
	if cancelled {
		c.StopReason = pi.StopAborted
		if c.ErrorMessage == nil {
			c.ErrorMessage = pi.Str(source + " request was cancelled")
		}
		return next(checkpoint)
	}
	if resp.StopReason == pi.StopAborted {
		return outcome{fault: source + " response is aborted while durable control is running"}
	}
	if cur.At == AtEffectPending && (ContextOverflow(resp, 0) || RecoverableLength(resp, 0)) {
		c.StopReason = pi.StopError
		if c.ErrorMessage == nil {
			c.ErrorMessage = pi.Str(msgOverflowDefault)
		}
		path, err := m.branchPath()
		if err != nil {
			return outcome{fault: err.Error()}
		}
		prep, ok, thrown := preparation(path, info.run.Compaction)
		if thrown != "" {
			return outcome{fault: thrown}
		}
		if !ok {
			return fail(c)
		}
		o := base
		o.At, o.Preparation = AtSummaryDeciding, prep
		return next(o)
	}
	switch resp.StopReason {
	case pi.StopDeferred:
		o := base
		o.At, o.SourceEntryID = AtDeferredSuspend, cur.ResponseEntryID
		if cur.At == AtEffectPending {
			h, mdl := resp.Deferred, info.run.Model
			if h == nil || h.ID == "" || h.Provider != mdl.Provider || h.ModelID != mdl.ModelID || h.API != resp.API {
				c.StopReason, c.ErrorMessage = pi.StopError, pi.Str(msgInvalidDeferred)
				return fail(c)
			}
			o.Poll = 0
		} else {
			o.Poll = cur.Poll
		}
		return next(o)
	case pi.StopError:
		if cur.At == AtEffectPending && (recovery || RetryableError(resp)) && cur.Attempt < info.run.MaxAttempts {
			o := base
			o.At, o.NextAttempt = AtRetryWait, cur.Attempt+1
			o.NotBefore = notBefore(m.now(), info.run.BaseDelayMs, info.run.MaxAgentDelayMs, cur.Attempt)
			o.RetryError = msgRetryDefault
			if resp.ErrorMessage != nil {
				o.RetryError = *resp.ErrorMessage
			}
			return next(o)
		}
		return fail(resp)
	}
	// a planned call's resultEntryId is a follower of the response id: it
	// carries the response's timestamp (response.ts publishResponse,
	// idGenerator.next(uuidV7Timestamp(responseEntryId)))
	var calls []int
	var stamps []string
	for i, b := range resp.Content {
		if _, ok := b.(pi.ToolCall); ok {
			calls = append(calls, i)
			stamps = append(stamps, UUIDv7Stamp(cur.ResponseEntryID))
		}
	}
	if len(calls) > 0 {
		o := base
		o.At, o.ToolCalls, o.ToolResultStamps = AtTools, calls, stamps
		return next(o)
	}
	if resp.StopReason == pi.StopToolUse {
		c.StopReason, c.ErrorMessage = pi.StopError, pi.Str(msgToolUseNoCalls)
		return fail(c)
	}
	return next(checkpoint)
}

// maxSafeInteger is JavaScript's Number.MAX_SAFE_INTEGER.
const maxSafeInteger = 1<<53 - 1

// defaultMaxAgentDelayMs is pi-ai's DEFAULT_MAX_AGENT_RETRY_DELAY_MS.
const defaultMaxAgentDelayMs = 60000

// notBefore is pi's retryNotBefore over pi-ai 1.0.3's retryDelayMs: delay =
// base·2^max(0, attempt−1) (MAX_SAFE_INTEGER unless Number.isSafeInteger),
// then Math.min with the cap (nil: 60000); now + delay, the same safety.
func notBefore(now, baseDelayMs float64, limit *float64, attempt int) float64 {
	safe := func(x float64) float64 {
		if x != math.Trunc(x) || math.Abs(x) > maxSafeInteger {
			return maxSafeInteger
		}
		return x
	}
	limitMs := float64(defaultMaxAgentDelayMs)
	if limit != nil {
		limitMs = *limit
	}
	return safe(now + math.Min(safe(baseDelayMs*math.Pow(2, float64(max(0, attempt-1)))), limitMs))
}
