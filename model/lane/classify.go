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
	s := newSettling(cur, resp)
	checkpoint := s.base
	checkpoint.At, checkpoint.Continuation = AtCheckpoint, MayFinish

	// 1. Cancellation wins, even over complete-looking content.
	cancelled := cur.CancelRequested
	if m.cfg.Mutant == MutantCompleteBeatsCancel && resp.StopReason != pi.StopError && resp.StopReason != pi.StopAborted {
		cancelled = false // deliberately wrong variant for mutation tests
	}
	if cancelled {
		s.c.StopReason = pi.StopAborted
		if s.c.ErrorMessage == nil {
			s.c.ErrorMessage = pi.Str(s.source + " request was cancelled")
		}
		return s.next(checkpoint)
	}
	if resp.StopReason == pi.StopAborted {
		return outcome{fault: s.source + " response is aborted while durable control is running"}
	}
	if cur.At == AtEffectPending && (ContextOverflowIn(m.cfg.ErrorPatterns, resp, 0) || RecoverableLength(resp, 0)) {
		return m.settleOverflow(s, info)
	}
	switch resp.StopReason {
	case pi.StopDeferred:
		return s.deferred(cur, info, resp)
	case pi.StopError:
		return m.settleError(s, cur, info, resp, recovery)
	}
	return s.toolCalls(cur, resp, checkpoint)
}

// settling is one classification in progress: the response's source name
// for messages, the message that commits, and the fields every next leaf
// carries over from the settled one.
type settling struct {
	source string
	c      *pi.AssistantMessage
	base   Op
}

func newSettling(cur Op, resp *pi.AssistantMessage) *settling {
	source := "Deferred"
	if cur.At == AtEffectPending {
		source = "Assistant"
	}
	return &settling{
		source: source,
		c:      resp.Clone(),
		base:   Op{At: "", CancelRequested: cur.CancelRequested, RequestedAt: cur.RequestedAt, LatestAssistantEntryID: cur.ResponseEntryID},
	}
}

// fail commits the message and fails the run with msg's error text, or
// "<source> request ended with <stopReason>" when it has none.
func (s *settling) fail(msg *pi.AssistantMessage) outcome {
	text := s.source + " request ended with " + string(msg.StopReason)
	if msg.ErrorMessage != nil {
		text = *msg.ErrorMessage
	}
	return outcome{committed: s.c, failCode: codeAssistantError, failMsg: text}
}

// next commits the message and moves to leaf o.
func (s *settling) next(o Op) outcome { return outcome{committed: s.c, next: &o} }

// settleOverflow commits an overflow as an error and settles into
// summary.deciding with the compaction preparation, or fails the run when
// there is nothing to compact.
func (m *Model) settleOverflow(s *settling, info *opInfo) outcome {
	s.c.StopReason = pi.StopError
	if s.c.ErrorMessage == nil {
		s.c.ErrorMessage = pi.Str(msgOverflowDefault)
	}
	path, err := m.branchPath()
	if err != nil {
		return outcome{fault: err.Error()}
	}
	prep, _, ok, thrown := preparation(path, info.run.Compaction)
	if thrown != "" {
		return outcome{fault: thrown}
	}
	if !ok {
		return s.fail(s.c)
	}
	o := s.base
	o.At, o.Preparation = AtSummaryDeciding, prep
	return s.next(o)
}

// deferred suspends on the response's deferred handle; a fresh response's
// handle must name the run's model, or the run fails.
func (s *settling) deferred(cur Op, info *opInfo, resp *pi.AssistantMessage) outcome {
	o := s.base
	o.At, o.SourceEntryID = AtDeferredSuspend, cur.ResponseEntryID
	if cur.At == AtEffectPending {
		h, mdl := resp.Deferred, info.run.Model
		if h == nil || h.ID == "" || h.Provider != mdl.Provider || h.ModelID != mdl.ModelID || h.API != resp.API {
			s.c.StopReason, s.c.ErrorMessage = pi.StopError, pi.Str(msgInvalidDeferred)
			return s.fail(s.c)
		}
		o.Poll = 0
	} else {
		o.Poll = cur.Poll
	}
	return s.next(o)
}

// settleError waits to retry a retryable (or recovering) fresh response
// with attempts left, and otherwise fails the run.
func (m *Model) settleError(s *settling, cur Op, info *opInfo, resp *pi.AssistantMessage, recovery bool) outcome {
	if cur.At == AtEffectPending && (recovery || RetryableErrorIn(m.cfg.ErrorPatterns, resp)) && cur.Attempt < info.run.MaxAttempts {
		o := s.base
		o.At, o.NextAttempt = AtRetryWait, cur.Attempt+1
		o.NotBefore = notBefore(m.now(), info.run.BaseDelayMs, m.delayCap(info.run), cur.Attempt)
		o.RetryError = msgRetryDefault
		if resp.ErrorMessage != nil {
			o.RetryError = *resp.ErrorMessage
		}
		return s.next(o)
	}
	return s.fail(resp)
}

// toolCalls runs the response's tool calls, fails a toolUse stop without
// any, and otherwise checkpoints.
func (s *settling) toolCalls(cur Op, resp *pi.AssistantMessage, checkpoint Op) outcome {
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
		o := s.base
		o.At, o.ToolCalls, o.ToolResultStamps = AtTools, calls, stamps
		return s.next(o)
	}
	if resp.StopReason == pi.StopToolUse {
		s.c.StopReason, s.c.ErrorMessage = pi.StopError, pi.Str(msgToolUseNoCalls)
		return s.fail(s.c)
	}
	return s.next(checkpoint)
}

// maxSafeInteger is JavaScript's Number.MAX_SAFE_INTEGER.
const maxSafeInteger = 1<<53 - 1

// defaultMaxAgentDelayMs is pi-ai's DEFAULT_MAX_AGENT_RETRY_DELAY_MS.
const defaultMaxAgentDelayMs = 60000

// delayCap is the cap on run's retry delays: its stored policy's
// maxAgentDelayMs, else Config.DefaultMaxAgentDelayMs (nil: pi-ai's
// 60000, applied by notBefore and retryDelay).
func (m *Model) delayCap(run Run) *float64 {
	if run.MaxAgentDelayMs != nil {
		return run.MaxAgentDelayMs
	}
	return m.cfg.DefaultMaxAgentDelayMs
}

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
