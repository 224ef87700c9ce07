package lane

import (
	"math"
	"regexp"
	"strings"

	"github.com/frameproof/frameproof/impl/pi"
	"github.com/frameproof/frameproof/impl/store"
)

// InterruptedWarning is pi's exact unknown-outcome warning (recovery.ts). The
// durability doc words it differently; the code string wins (facts §9.8).
const InterruptedWarning = "Assistant request was interrupted. The preceding content is the latest committed partial; newer live output may be missing and the external outcome is unknown."

// Exact classification strings from response.ts.
const (
	msgInvalidDeferred   = "Provider returned an invalid deferred handle"
	msgToolUseNoCalls    = "Provider reported tool use without any tool calls"
	msgOverflowDefault   = "Assistant request exceeded the context window"
	msgRetryDefault      = "Assistant request failed"
	codeAssistantError   = "assistant_error"
	codeModelUnavailable = "model_unavailable"
)

func cancelledMessage(source string) string { return source + " request was cancelled" }

// ZeroUsage is recovery.ts's ZERO_USAGE.
func ZeroUsage() pi.Usage { return pi.Usage{} }

// Retryable and overflow patterns: pi-ai 1.0.3 utils/retry.js and
// utils/overflow.js, same alternatives, case-insensitive. They run on
// jsPatternText of the error text, so each verdict is JavaScript's
// (jsregex.go).
var (
	nonRetryable = compileFiltered(`(?i)` + strings.Join([]string{
		"GoUsageLimitError", "FreeUsageLimitError", "Monthly usage limit reached", "available balance",
		"insufficient_quota", "out of budget", "quota exceeded", "billing", "subscription_sharing_usage_limit_exceeded",
	}, "|"))
	retryable = compileFiltered(`(?i)` + strings.Join([]string{
		"overloaded", "currently experiencing high demand", "model is at capacity", "rate.?limit", "too many requests",
		"429", "500", "502", "503", "504", "520", "524", "service.?unavailable", "server.?error", "internal.?error",
		"provider.?returned.?error", "exceeded request buffer limit while retrying upstream",
		"network.?error", "connection.?error", "connection.?refused", "connection.?lost", "other side closed",
		"fetch failed", "getaddrinfo", "ENOTFOUND", "EAI_AGAIN", "upstream.?connect", "reset before headers",
		"socket hang up", "socket connection was closed", "timed? out", "timeout", "terminated",
		"websocket.?closed", "websocket.?error", "ended without", "stream ended before message_stop",
		"stream ended before a terminal response event", "http2 request did not get a response", "retry delay",
		"you can retry your request", "try your request again", "please retry your request", "ResourceExhausted",
		"subscription_sharing_usage_unavailable", "subscription_sharing_user_unavailable",
	}, "|"))
	overflowPatterns = compileAll(
		`(?i)prompt (?:is )?too long`, `(?i)prompt exceeds max length`, `(?i)request_too_large`,
		`(?i)input is too long for requested model`, `(?i)exceeds the context window`,
		`(?i)exceeds (?:the )?(?:model'?s )?maximum context length(?: of [\d,]+ tokens?|\s*\([\d,]+\))`,
		`(?i)input token count.*exceeds the maximum`, `(?i)maximum prompt length is \d+`,
		`(?i)reduce the length of the messages`, `(?i)maximum context length is \d+ tokens`,
		`(?i)exceeds (?:the )?maximum allowed input length of [\d,]+ tokens?`,
		`(?i)input \(\d+ tokens\) is longer than the model'?s context length \(\d+ tokens\)`,
		`(?i)exceeds the limit of \d+`, `(?i)exceeds the available context size`, `(?i)greater than the context length`,
		`(?i)context window exceeds limit`, `(?i)exceeded model token limit`, `(?i)too large for model with \d+ maximum context length`,
		`(?i)prompt has [\d,]+ tokens?, but the configured context size is [\d,]+ tokens?`,
		`(?i)model_context_window_exceeded`, `(?i)prompt too long; exceeded (?:max )?context length`,
		`(?i)range of input length should be`, `(?i)context[_ ]length[_ ]exceeded`, `(?i)too many tokens`, `(?i)token limit exceeded`)
	nonOverflow    = compileAll(`(?i)^(Throttling error|Service unavailable):`, `(?i)rate limit`, `(?i)too many requests`)
	cerebrasNoBody = regexp.MustCompile(`(?i)^4(?:00|13)\s*(?:status code)?\s*\(no body\)`)
)

func compileAll(ps ...string) []filteredRE {
	out := make([]filteredRE, len(ps))
	for i, p := range ps {
		out[i] = compileFiltered(p)
	}
	return out
}

func anyMatch(rs []filteredRE, s string) bool {
	s = jsPatternText(s)
	low, ascii := lowerASCII(s)
	for _, r := range rs {
		if r.matchLowered(s, low, ascii) {
			return true
		}
	}
	return false
}

// IsRetryableAssistantError is pi-ai's isRetryableAssistantError.
func IsRetryableAssistantError(m *pi.AssistantMessage) bool {
	if m.StopReason != pi.StopError || m.ErrorMessage == nil || *m.ErrorMessage == "" {
		return false
	}
	text := jsPatternText(*m.ErrorMessage)
	low, ascii := lowerASCII(text)
	if nonRetryable.matchLowered(text, low, ascii) {
		return false
	}
	return retryable.matchLowered(text, low, ascii)
}

// IsContextOverflow is pi-ai's isContextOverflow.
func IsContextOverflow(m *pi.AssistantMessage, contextWindow float64) bool {
	if m.StopReason == pi.StopError && m.ErrorMessage != nil && *m.ErrorMessage != "" {
		e := *m.ErrorMessage
		if !anyMatch(nonOverflow, e) {
			if anyMatch(overflowPatterns, e) || (m.Provider == "cerebras" && cerebrasNoBody.MatchString(jsPatternText(e))) {
				return true
			}
		}
	}
	in := m.Usage.Input + m.Usage.CacheRead
	if contextWindow != 0 && m.StopReason == pi.StopStop && in > contextWindow {
		return true
	}
	if contextWindow != 0 && m.StopReason == pi.StopLength && m.Usage.Output == 0 && in >= contextWindow*0.99 {
		return true
	}
	return false
}

// IsRecoverableLength is pi-ai's isRecoverableLength.
func IsRecoverableLength(m *pi.AssistantMessage, desiredMaxOutput float64) bool {
	return m.StopReason == pi.StopLength && desiredMaxOutput > 0 && m.Usage.Output < desiredMaxOutput
}

// Disposition is the outcome of classifying one response: the message to
// commit and either the next leaf or a failure.
type Disposition struct {
	Committed *pi.AssistantMessage
	Next      *OpState
	Failure   *OpError
	// Preparation is the overflow compaction preparation a settlement into
	// summary.deciding writes.
	Preparation *compactionPrep
}

// classifyInput carries everything classification reads.
type classifyInput struct {
	current  *OpState // the effect_pending leaf being settled
	response *pi.AssistantMessage
	recovery bool
	now      float64 // ms, for retry notBefore
	// delayCap caps a retry delay when the policy names none
	// (Config.DefaultMaxAgentDelayMs; nil: pi-ai's default)
	delayCap       *float64
	newID          func() string
	cancelLosesBug bool
	// overflowPrep is prepareOverflowCompaction's result, computed before
	// the settlement TX (nil: nothing to compact, or not an overflow).
	overflowPrep *compactionPrep
}

// errAbortedWhileRunning is pi's SessionInvariantError for an aborted response
// under running control.
type invariantError struct{ msg string }

func (e *invariantError) Error() string { return e.msg }

// Classify applies response.ts's first-match-wins rules.
func classify(in classifyInput) (Disposition, error) {
	cur, resp := in.current, in.response
	s := newSettlement(cur, resp)
	cancelled := cur.Control.CancelRequested
	if in.cancelLosesBug && resp.StopReason != pi.StopError && resp.StopReason != pi.StopAborted {
		cancelled = false // BUG: complete-looking content outranks cancellation
	}
	switch {
	case cancelled:
		s.committed.StopReason = pi.StopAborted
		if s.committed.ErrorMessage == nil {
			s.committed.ErrorMessage = strp(cancelledMessage(s.source))
		}
		return Disposition{Committed: s.committed, Next: s.checkpoint()}, nil
	case resp.StopReason == pi.StopAborted:
		return Disposition{}, &invariantError{s.source + " response is aborted while durable control is running"}
	case isOverflow(cur, resp):
		return s.overflow(in.overflowPrep), nil
	case resp.StopReason == pi.StopDeferred:
		return s.deferred(), nil
	case resp.StopReason == pi.StopError:
		return s.retryOrFail(in.recovery, in.now, in.delayCap), nil
	}
	return s.toolCalls(in.newID)
}

// settlement is one classification in progress: the settled leaf and
// response, the message that commits, and what the next leaves inherit.
type settlement struct {
	cur       *OpState
	resp      *pi.AssistantMessage
	source    string // "Assistant" or "Deferred", for messages
	cfg       Configuration
	turnID    string
	scope     *OpState
	committed *pi.AssistantMessage
}

func newSettlement(cur *OpState, resp *pi.AssistantMessage) *settlement {
	s := &settlement{cur: cur, resp: resp, source: "Deferred"}
	if cur.At == LeafAssistantEffectPending {
		s.source = "Assistant"
		s.cfg = cur.Gen.Configuration
		s.turnID = cur.Gen.StepID
	} else {
		s.cfg = *cur.Configuration
		s.turnID = cur.StepID + ":poll:" + itoa(cur.Poll)
	}
	s.scope = cur.scope("")
	s.scope.LatestAssistantEntryID = strp(cur.ResponseEntryID)
	s.committed = resp.Clone()
	return s
}

// fail is the run failure for m: its error text, or "<source> request
// ended with <stopReason>" when it has none.
func (s *settlement) fail(m *pi.AssistantMessage) *OpError {
	msg := s.source + " request ended with " + string(m.StopReason)
	if m.ErrorMessage != nil {
		msg = *m.ErrorMessage
	}
	return &OpError{Code: codeAssistantError, Message: msg}
}

// checkpoint is the checkpoint leaf triggered by the response.
func (s *settlement) checkpoint() *OpState {
	n := *s.scope
	n.At, n.TriggerEntryID = LeafCheckpoint, s.cur.ResponseEntryID
	n.Continuation = Continuation{Kind: ContinueMayFinish, IncludeFinalAssistant: true}
	return &n
}

// overflow commits an overflow as an error and settles into
// summary.deciding with the preparation, or fails the run when recovery
// was already used or there is nothing to compact.
func (s *settlement) overflow(prep *compactionPrep) Disposition {
	cur, committed := s.cur, s.committed
	committed.StopReason = pi.StopError
	if committed.ErrorMessage == nil {
		committed.ErrorMessage = strp(msgOverflowDefault)
	}
	if cur.Gen.OverflowRecoveryUsed || prep == nil {
		return Disposition{Committed: committed, Failure: s.fail(committed)}
	}
	n := *s.scope
	n.At = LeafSummaryDeciding
	n.Task = jobj("taskId", prep.taskID, "reason", "overflow", "boundary", jobj("kind", "resume_checkpoint",
		"resumeAfter", jobj("continuation", Continuation{Kind: ContinueNeedAssistant, OverflowRecoveryUsed: true}.value(),
			"triggerEntryId", cur.Gen.TriggerEntryID)))
	return Disposition{Committed: committed, Next: &n, Preparation: prep}
}

// deferred suspends on the response's deferred handle; a fresh response's
// handle must name the configured model, or the run fails.
func (s *settlement) deferred() Disposition {
	cur, resp, committed := s.cur, s.resp, s.committed
	n := *s.scope
	n.At, n.SourceEntryID, n.Configuration = LeafDeferredSuspended, cur.ResponseEntryID, &s.cfg
	if cur.At == LeafAssistantEffectPending {
		h := resp.Deferred
		if h == nil || h.ID == "" || h.Provider != s.cfg.Model.Provider || h.ModelID != s.cfg.Model.ModelID || h.API != resp.API {
			committed.StopReason, committed.ErrorMessage = pi.StopError, strp(msgInvalidDeferred)
			return Disposition{Committed: committed, Failure: s.fail(committed)}
		}
		n.StepID, n.Poll, n.StreamOptions = cur.Gen.StepID, 0, cur.Gen.StreamOptions
	} else {
		n.StepID, n.Poll, n.StreamOptions = cur.StepID, cur.Poll, cur.StreamOptions
	}
	return Disposition{Committed: committed, Next: &n}
}

// retryOrFail waits to retry a retryable (or recovering) fresh response
// with attempts left, and otherwise fails the run.
func (s *settlement) retryOrFail(recovery bool, now float64, delayCap *float64) Disposition {
	cur, resp := s.cur, s.resp
	if cur.At == LeafAssistantEffectPending && (recovery || IsRetryableAssistantError(resp)) &&
		cur.Attempt < cur.Gen.RetryPolicy.MaxAttempts {
		n := *s.scope
		n.At, n.Gen, n.NextAttempt = LeafAssistantRetryWait, cur.Gen, cur.Attempt+1
		policy := cur.Gen.RetryPolicy
		if policy.MaxAgentDelayMs == nil {
			policy.MaxAgentDelayMs = delayCap
		}
		n.NotBefore = RetryNotBefore(policy, cur.Attempt, now)
		n.ErrorMessage = msgRetryDefault
		if resp.ErrorMessage != nil {
			n.ErrorMessage = *resp.ErrorMessage
		}
		return Disposition{Committed: s.committed, Next: &n}
	}
	return Disposition{Committed: s.committed, Failure: s.fail(resp)}
}

// toolCalls runs the response's tool calls, fails a toolUse stop without
// any, and otherwise checkpoints.
func (s *settlement) toolCalls(newID func() string) (Disposition, error) {
	cur, resp, committed := s.cur, s.resp, s.committed
	calls, err := planCalls(resp, cur.ResponseEntryID, newID)
	if err != nil {
		return Disposition{}, err
	}
	if len(calls) > 0 {
		n := *s.scope
		n.At, n.BatchAssistantEntryID, n.Configuration, n.BatchTurnID, n.Calls = LeafTools, cur.ResponseEntryID, &s.cfg, s.turnID, calls
		return Disposition{Committed: committed, Next: &n}, nil
	}
	if resp.StopReason == pi.StopToolUse {
		committed.StopReason, committed.ErrorMessage = pi.StopError, strp(msgToolUseNoCalls)
		return Disposition{Committed: committed, Failure: s.fail(committed)}, nil
	}
	return Disposition{Committed: committed, Next: s.checkpoint()}, nil
}

// DefaultMaxAgentRetryDelayMs is pi-ai 1.0.3's DEFAULT_MAX_AGENT_RETRY_DELAY_MS.
const DefaultMaxAgentRetryDelayMs = 60_000

// RetryDelay is pi-ai 1.0.3's retryDelayMs: baseDelayMs·2^max(0, attempt−1),
// MAX_SAFE_INTEGER unless a safe integer (Number.isSafeInteger — so a
// fractional base also hits the cap), then capped by maxAgentDelayMs (nil:
// 60 s, pi-ai's `??`; Math.min, so a NaN cap gives NaN as it does in JS).
func RetryDelay(p RetryPolicy, attempt int) float64 {
	limit := float64(DefaultMaxAgentRetryDelayMs)
	if p.MaxAgentDelayMs != nil {
		limit = *p.MaxAgentDelayMs
	}
	return math.Min(safeIntegerOrMax(p.BaseDelayMs*math.Pow(2, float64(max(0, attempt-1)))), limit)
}

// RetryNotBefore is the harness's retryNotBefore (the retry.ts built on
// pi-ai's retryDelayMs): now + delay, MAX_SAFE_INTEGER unless a safe integer.
func RetryNotBefore(p RetryPolicy, attempt int, now float64) float64 {
	return safeIntegerOrMax(now + RetryDelay(p, attempt))
}

func safeIntegerOrMax(x float64) float64 {
	if x != math.Trunc(x) || math.Abs(x) > store.MaxSafeInteger { // NaN and ±Inf fail too
		return store.MaxSafeInteger
	}
	return x
}

func itoa(n int) string { return pi.FormatNumber(float64(n)) }

// planCalls plans one call per tool call of resp. Each resultEntryId is
// minted with the response's timestamp (response.ts publishResponse:
// idGenerator.next(uuidV7Timestamp(responseEntryId))), so a tool result
// sorts with the response that asked for it, whenever the tools run.
func planCalls(resp *pi.AssistantMessage, responseEntryID string, newID func() string) ([]PlannedCall, error) {
	var calls []PlannedCall
	var ms int64
	for i, c := range resp.Content {
		if _, ok := c.(pi.ToolCall); !ok {
			continue
		}
		if calls == nil {
			var err error
			if ms, err = uuidV7Timestamp(responseEntryID); err != nil {
				return nil, err
			}
		}
		id, err := followerID(newID(), ms)
		if err != nil {
			return nil, err
		}
		calls = append(calls, PlannedCall{Status: CallPlanned, SourceIndex: i, ResultEntryID: id})
	}
	return calls, nil
}
