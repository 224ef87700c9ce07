package lane

import (
	"cmp"
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

// errorPatterns are one release's utils/retry.js and utils/overflow.js,
// the same alternatives, case-insensitive. They run on jsPatternText of
// the error text, so each verdict is JavaScript's (jsregex.go).
type errorPatterns struct {
	nonRetryable, retryable filteredRE
	overflow, nonOverflow   []filteredRE
	// cerebrasAnyProvider: before 0.87 the bodyless 400/413 pattern was
	// an ordinary overflow row, not one kept for provider "cerebras".
	cerebrasAnyProvider bool
}

// pi-ai 1.0.3's pattern lists; older releases lack some (releaseDrops).
var (
	nonRetryable103 = []string{
		"GoUsageLimitError", "FreeUsageLimitError", "Monthly usage limit reached", "available balance",
		"insufficient_quota", "out of budget", "quota exceeded", "billing", "subscription_sharing_usage_limit_exceeded",
	}
	retryable103 = []string{
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
	}
	overflow103 = []string{
		`prompt (?:is )?too long`, `prompt exceeds max length`, `request_too_large`,
		`input is too long for requested model`, `exceeds the context window`,
		`exceeds (?:the )?(?:model'?s )?maximum context length(?: of [\d,]+ tokens?|\s*\([\d,]+\))`,
		`input token count.*exceeds the maximum`, `maximum prompt length is \d+`,
		`reduce the length of the messages`, `maximum context length is \d+ tokens`,
		`exceeds (?:the )?maximum allowed input length of [\d,]+ tokens?`,
		`input \(\d+ tokens\) is longer than the model'?s context length \(\d+ tokens\)`,
		`exceeds the limit of \d+`, `exceeds the available context size`, `greater than the context length`,
		`context window exceeds limit`, `exceeded model token limit`, `too large for model with \d+ maximum context length`,
		`prompt has [\d,]+ tokens?, but the configured context size is [\d,]+ tokens?`,
		`model_context_window_exceeded`, `prompt too long; exceeded (?:max )?context length`,
		`range of input length should be`, `context[_ ]length[_ ]exceeded`, `too many tokens`, `token limit exceeded`,
	}
	nonOverflow103 = []string{`^(Throttling error|Service unavailable):`, `rate limit`, `too many requests`}
	cerebrasNoBody = regexp.MustCompile(`(?i)^4(?:00|13)\s*(?:status code)?\s*\(no body\)`)
)

// releaseChange is what an older release's lists lack, or have instead,
// against 1.0.3's (read from each release's published dist/utils).
type releaseChange struct {
	drop                map[string]bool   // alternatives and patterns the release lacks
	replace             map[string]string // 1.0.3's pattern -> the release's
	cerebrasAnyProvider bool
}

var releaseChanges = map[pi.AIRelease]releaseChange{
	pi.AI103:  {},
	pi.AI0991: {drop: set("model is at capacity", `prompt exceeds max length`)},
	pi.AI0871: {drop: set("subscription_sharing_usage_limit_exceeded", "model is at capacity",
		"subscription_sharing_usage_unavailable", "subscription_sharing_user_unavailable", `prompt exceeds max length`)},
	pi.AI0851: {drop: set("subscription_sharing_usage_limit_exceeded", "currently experiencing high demand",
		"model is at capacity", "520", "subscription_sharing_usage_unavailable", "subscription_sharing_user_unavailable",
		`prompt exceeds max length`),
		replace:             map[string]string{`prompt (?:is )?too long`: `prompt is too long`},
		cerebrasAnyProvider: true},
}

func set(xs ...string) map[string]bool {
	m := make(map[string]bool, len(xs))
	for _, x := range xs {
		m[x] = true
	}
	return m
}

// patternsByRelease is every known release's patterns, compiled once.
var patternsByRelease = func() map[pi.AIRelease]*errorPatterns {
	out := make(map[pi.AIRelease]*errorPatterns, len(releaseChanges))
	for r, c := range releaseChanges {
		list := func(base []string) []string {
			var l []string
			for _, p := range base {
				if !c.drop[p] {
					l = append(l, cmp.Or(c.replace[p], p))
				}
			}
			return l
		}
		alt := func(base []string) filteredRE { return compileFiltered(`(?i)` + strings.Join(list(base), "|")) }
		each := func(base []string) []filteredRE {
			ps := list(base)
			for i := range ps {
				ps[i] = `(?i)` + ps[i]
			}
			return compileAll(ps...)
		}
		out[r] = &errorPatterns{nonRetryable: alt(nonRetryable103), retryable: alt(retryable103),
			overflow: each(overflow103), nonOverflow: each(nonOverflow103), cerebrasAnyProvider: c.cerebrasAnyProvider}
	}
	return out
}()

// patternsOf is release's patterns ("" is 1.0.3); an unknown release is
// refused by Config validation before it gets here.
func patternsOf(release pi.AIRelease) *errorPatterns {
	return patternsByRelease[cmp.Or(release, pi.AI103)]
}

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

// IsRetryableAssistantError is pi-ai 1.0.3's isRetryableAssistantError.
func IsRetryableAssistantError(m *pi.AssistantMessage) bool { return IsRetryableIn(pi.AI103, m) }

// IsContextOverflow is pi-ai 1.0.3's isContextOverflow.
func IsContextOverflow(m *pi.AssistantMessage, contextWindow float64) bool {
	return IsContextOverflowIn(pi.AI103, m, contextWindow)
}

// IsRetryableIn is release's isRetryableAssistantError ("": 1.0.3; false
// for a release the lane does not know).
func IsRetryableIn(release pi.AIRelease, m *pi.AssistantMessage) bool {
	p := patternsOf(release)
	return p != nil && p.retryableError(m)
}

// IsContextOverflowIn is release's isContextOverflow ("": 1.0.3; false for
// a release the lane does not know).
func IsContextOverflowIn(release pi.AIRelease, m *pi.AssistantMessage, contextWindow float64) bool {
	p := patternsOf(release)
	return p != nil && p.contextOverflow(m, contextWindow)
}

// retryableError is the release's isRetryableAssistantError.
func (p *errorPatterns) retryableError(m *pi.AssistantMessage) bool {
	if m.StopReason != pi.StopError || m.ErrorMessage == nil || *m.ErrorMessage == "" {
		return false
	}
	text := jsPatternText(*m.ErrorMessage)
	low, ascii := lowerASCII(text)
	if p.nonRetryable.matchLowered(text, low, ascii) {
		return false
	}
	return p.retryable.matchLowered(text, low, ascii)
}

// contextOverflow is the release's isContextOverflow.
func (p *errorPatterns) contextOverflow(m *pi.AssistantMessage, contextWindow float64) bool {
	if m.StopReason == pi.StopError && m.ErrorMessage != nil && *m.ErrorMessage != "" {
		e := *m.ErrorMessage
		if !anyMatch(p.nonOverflow, e) {
			cerebras := m.Provider == "cerebras" || p.cerebrasAnyProvider
			if anyMatch(p.overflow, e) || (cerebras && cerebrasNoBody.MatchString(jsPatternText(e))) {
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
	delayCap *float64
	// patterns are Config.ErrorPatterns' release's retry and overflow
	// patterns (nil: 1.0.3's).
	patterns       *errorPatterns
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
	case isOverflow(cmp.Or(in.patterns, patternsOf(pi.AI103)), cur, resp):
		return s.overflow(in.overflowPrep), nil
	case resp.StopReason == pi.StopDeferred:
		return s.deferred(), nil
	case resp.StopReason == pi.StopError:
		return s.retryOrFail(in.recovery, in.now, in.delayCap, cmp.Or(in.patterns, patternsOf(pi.AI103))), nil
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
func (s *settlement) retryOrFail(recovery bool, now float64, delayCap *float64, patterns *errorPatterns) Disposition {
	cur, resp := s.cur, s.resp
	if cur.At == LeafAssistantEffectPending && (recovery || patterns.retryableError(resp)) &&
		cur.Attempt < cur.Gen.RetryPolicy.MaxAttempts {
		n := *s.scope
		n.At, n.Gen, n.NextAttempt = LeafAssistantRetryWait, cur.Gen, cur.Attempt+1
		n.NotBefore = RetryNotBefore(cappedPolicy(cur.Gen.RetryPolicy, delayCap), cur.Attempt, now)
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

// cappedPolicy is p with delayCap (Config.DefaultMaxAgentDelayMs) as its
// cap when it names none: the one policy a retry wait's notBefore and its
// retry_scheduled delayMs are both computed from (pi 0.85.1's
// runtime/drive/response.js publishResponse: delayMs is retryDelay of the
// attempt, the delay retryNotBefore added).
func cappedPolicy(p RetryPolicy, delayCap *float64) RetryPolicy {
	if p.MaxAgentDelayMs == nil {
		p.MaxAgentDelayMs = delayCap
	}
	return p
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
