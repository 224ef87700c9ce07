package lane

import (
	"cmp"
	"regexp"
	"strings"

	"github.com/frameproof/frameproof/impl/pi"
)

// The model's decision tables for pi-ai's two error predicates, written
// from pi-ai 1.0.3's utils/retry.js (isRetryableAssistantError) and
// utils/overflow.js (isContextOverflow). Each table is a list of rows read
// top to bottom; the first row whose pattern matches the error text
// decides, and a text no row matches gets the table's default. The rows
// are pi-ai's pattern data (the facts); the reading order is pi-ai's: the
// exclusions come first in both predicates.

// errorRow is one row: a JavaScript-compatible, case-insensitive pattern
// and what a match means. Go's regexp reads it against jsUnits of the
// text, which is how it gives JavaScript's verdict.
type errorRow struct {
	pattern string
	// from and until bound the pi-ai releases whose lists hold the row:
	// from that release (zero: every release the model knows) up to, not
	// including, until (zero: still in 1.0.3). See inRelease.
	from, until pi.AIRelease
	re          *regexp.Regexp // pattern, case-insensitive, compiled when the table is built
	// literal is the pattern in lower case when it is plain ASCII text
	// with no regexp syntax ("" otherwise): on an ASCII text, the
	// case-insensitive pattern matches exactly where the lowered text
	// contains it (only non-ASCII K and S fold onto ASCII letters).
	literal string
	match   bool
}

// retryRows: retry.js. A provider limit (quota, billing, usage caps) is not
// transient even when its text also says 429 or rate limit, so those rows
// come first and say "not retryable".
var retryRows = append(rows(false,
	"GoUsageLimitError", "FreeUsageLimitError", "Monthly usage limit reached", "available balance",
	"insufficient_quota", "out of budget", "quota exceeded", "billing",
	"subscription_sharing_usage_limit_exceeded",
), rows(true,
	// load and HTTP status
	"overloaded", "currently experiencing high demand", "model is at capacity", "rate.?limit",
	"too many requests", "429", "500", "502", "503", "504", "520", "524",
	"service.?unavailable", "server.?error", "internal.?error",
	// wrappers of upstream failures
	"provider.?returned.?error", "exceeded request buffer limit while retrying upstream",
	// transport
	"network.?error", "connection.?error", "connection.?refused", "connection.?lost",
	"other side closed", "fetch failed", "getaddrinfo", "ENOTFOUND", "EAI_AGAIN",
	"upstream.?connect", "reset before headers", "socket hang up", "socket connection was closed",
	"timed? out", "timeout", "terminated", "websocket.?closed", "websocket.?error",
	// premature stream ends
	"ended without", "stream ended before message_stop", "stream ended before a terminal response event",
	"http2 request did not get a response",
	// retry guidance
	"retry delay", "you can retry your request", "try your request again", "please retry your request",
	"ResourceExhausted", "subscription_sharing_usage_unavailable", "subscription_sharing_user_unavailable",
)...)

// overflowRows: overflow.js. Throttling texts that mention tokens are not
// overflow, so NON_OVERFLOW_PATTERNS come first.
var overflowRows = append(rows(false,
	`^(Throttling error|Service unavailable):`, `rate limit`, `too many requests`,
), rows(true,
	`prompt (?:is )?too long`, `prompt exceeds max length`, `request_too_large`,
	`input is too long for requested model`, `exceeds the context window`,
	`exceeds (?:the )?(?:model'?s )?maximum context length(?: of [\d,]+ tokens?|\s*\([\d,]+\))`,
	`input token count.*exceeds the maximum`, `maximum prompt length is \d+`,
	`reduce the length of the messages`, `maximum context length is \d+ tokens`,
	`exceeds (?:the )?maximum allowed input length of [\d,]+ tokens?`,
	`input \(\d+ tokens\) is longer than the model'?s context length \(\d+ tokens\)`,
	`exceeds the limit of \d+`, `exceeds the available context size`, `greater than the context length`,
	`context window exceeds limit`, `exceeded model token limit`,
	`too large for model with \d+ maximum context length`,
	`prompt has [\d,]+ tokens?, but the configured context size is [\d,]+ tokens?`,
	`model_context_window_exceeded`, `prompt too long; exceeded (?:max )?context length`,
	`range of input length should be`, `context[_ ]length[_ ]exceeded`, `too many tokens`,
	`token limit exceeded`,
)...)

// cerebrasBodyless is overflow.js's one provider-conditioned row: Cerebras
// answers an overflow with a bare 400/413. Before pi-ai 0.87.1 it was an
// ordinary overflow row, read for every provider (bodylessAnyProvider).
const cerebrasBodyless = `^4(?:00|13)\s*(?:status code)?\s*\(no body\)`

var cerebrasBodylessRE = regexp.MustCompile("(?i)" + cerebrasBodyless)

// The published releases' lists differ from 1.0.3's (each release's
// dist/utils/retry.js and overflow.js): rows pi-ai added after a release
// are marked from the release that has them, rows it rewrote until the
// release that rewrote them.
func init() {
	since(retryRows, pi.AI0871, "currently experiencing high demand")
	since(retryRows, pi.AI0871, "520")
	since(retryRows, pi.AI0991, "subscription_sharing_usage_limit_exceeded",
		"subscription_sharing_usage_unavailable", "subscription_sharing_user_unavailable")
	since(retryRows, pi.AI103, "model is at capacity")
	since(overflowRows, pi.AI103, `prompt exceeds max length`)
	since(overflowRows, pi.AI0871, `prompt (?:is )?too long`)
	overflowRows = append(overflowRows, rows(true, `prompt is too long`, cerebrasBodyless)...)
	for i := len(overflowRows) - 2; i < len(overflowRows); i++ {
		overflowRows[i].until = pi.AI0871
	}
}

// since marks the rows of table with these patterns as first held by
// release from.
func since(table []errorRow, from pi.AIRelease, patterns ...string) {
	for _, p := range patterns {
		found := false
		for i := range table {
			if table[i].pattern == p {
				table[i].from, found = from, true
			}
		}
		if !found {
			panic("model/lane: no error row " + p)
		}
	}
}

// releaseAge orders the releases the model knows, oldest first.
var releaseAge = map[pi.AIRelease]int{pi.AI0851: 0, pi.AI0871: 1, pi.AI0991: 2, pi.AI103: 3}

// inRelease says whether release r's lists hold the row.
func (row errorRow) inRelease(r pi.AIRelease) bool {
	age := releaseAge[r]
	return (row.from == "" || age >= releaseAge[row.from]) && (row.until == "" || age < releaseAge[row.until])
}

func rows(match bool, patterns ...string) []errorRow {
	out := make([]errorRow, len(patterns))
	for i, p := range patterns {
		out[i] = errorRow{pattern: p, re: regexp.MustCompile("(?i)" + p), match: match}
		if isASCII(p) && !strings.ContainsAny(p, `\.+*?()|[]{}^$`) {
			out[i].literal = strings.ToLower(p)
		}
	}
	return out
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// decide reads a table: the first matching row's verdict, else false.
// The rows read the text as JavaScript does (jsUnits); on an ASCII text a
// literal row is a substring test of the lowered text.
func decide(table []errorRow, release pi.AIRelease, text string) (verdict, matched bool) {
	text = jsUnits(text)
	lower, ascii := "", isASCII(text)
	if ascii {
		lower = strings.ToLower(text)
	}
	for _, r := range table {
		if !r.inRelease(release) {
			continue
		}
		if r.literal != "" && ascii {
			if strings.Contains(lower, r.literal) {
				return r.match, true
			}
			continue
		}
		if r.re.MatchString(text) {
			return r.match, true
		}
	}
	return false, false
}

// errorText is the error message an error-based rule reads: only a
// non-empty errorMessage of an "error" stop counts.
func errorText(m *pi.AssistantMessage) (string, bool) {
	if m.StopReason != pi.StopError || m.ErrorMessage == nil || *m.ErrorMessage == "" {
		return "", false
	}
	return *m.ErrorMessage, true
}

// RetryableError is the model's isRetryableAssistantError (pi-ai
// 1.0.3's): an error stop whose text a retry row accepts before any limit
// row rejects it.
func RetryableError(m *pi.AssistantMessage) bool { return RetryableErrorIn(pi.AI103, m) }

// RetryableErrorIn is RetryableError with release's lists ("": 1.0.3).
func RetryableErrorIn(release pi.AIRelease, m *pi.AssistantMessage) bool {
	release = cmp.Or(release, pi.AI103)
	text, ok := errorText(m)
	if !ok {
		return false
	}
	verdict, _ := decide(retryRows, release, text)
	return verdict
}

// ContextOverflow is the model's isContextOverflow (pi-ai 1.0.3's).
// contextWindow 0 means none is configured, which turns off the two usage
// rules.
func ContextOverflow(m *pi.AssistantMessage, contextWindow float64) bool {
	return ContextOverflowIn(pi.AI103, m, contextWindow)
}

// ContextOverflowIn is ContextOverflow with release's lists ("": 1.0.3).
func ContextOverflowIn(release pi.AIRelease, m *pi.AssistantMessage, contextWindow float64) bool {
	release = cmp.Or(release, pi.AI103)
	if text, ok := errorText(m); ok {
		verdict, matched := decide(overflowRows, release, text)
		if verdict {
			return true
		}
		excluded := matched // a non-overflow row matched first
		conditioned := releaseAge[release] >= releaseAge[pi.AI0871]
		if !excluded && conditioned && m.Provider == "cerebras" && cerebrasBodylessRE.MatchString(jsUnits(text)) {
			return true
		}
	}
	if contextWindow == 0 {
		return false
	}
	input := m.Usage.Input + m.Usage.CacheRead
	switch m.StopReason {
	case pi.StopStop:
		return input > contextWindow // accepted silently past the window
	case pi.StopLength:
		return m.Usage.Output == 0 && input >= contextWindow*0.99 // truncated to fill it
	}
	return false
}

// RecoverableLength is the model's isRecoverableLength: a length stop
// short of the intended output limit.
func RecoverableLength(m *pi.AssistantMessage, intendedOutputLimit float64) bool {
	return m.StopReason == pi.StopLength && intendedOutputLimit > 0 && m.Usage.Output < intendedOutputLimit
}
