package compaction

import (
	"errors"
	"math"

	"github.com/frameproof/frameproof/impl/pi"
)

// estimatedImageChars is compaction.ts's ESTIMATED_IMAGE_CHARS.
const estimatedImageChars = 4800

// str is v[key] when it is a string.
func str(v pi.JSONValue, key string) (string, bool) {
	f := v.Prop(key)
	return f.Str(), f.Kind() == pi.String
}

// strLen is JS `v[key].length` for a string property (0 otherwise).
func strLen(v pi.JSONValue, key string) int {
	s, _ := str(v, key)
	return pi.UTF16Len(s)
}

// contentChars is estimateTextAndImageContentChars: a string content counts
// its length; in a block list, text blocks with a non-empty text count its
// length and image blocks count ESTIMATED_IMAGE_CHARS.
func contentChars(content pi.JSONValue) int {
	if content.Kind() == pi.String {
		return pi.UTF16Len(content.Str())
	}
	chars := 0
	for _, b := range content.Array() {
		switch t, _ := str(b, "type"); t {
		case "text":
			chars += strLen(b, "text")
		case "image":
			chars += estimatedImageChars
		}
	}
	return chars
}

// safeJSONLen is the length of compaction.ts's safeJsonStringify: JSON.stringify,
// or "undefined" when that gives undefined.
func safeJSONLen(v pi.JSONValue) int {
	if v.IsUndefined() {
		return len("undefined")
	}
	return pi.UTF16Len(string(v.AppendJSON(nil)))
}

// EstimateTokens is compaction.ts estimateTokens: ceil(chars/4) by role.
func EstimateTokens(message pi.JSONValue) int {
	chars := 0
	switch role, _ := str(message, "role"); role {
	case "user", "custom", "toolResult":
		chars = contentChars(message.Prop("content"))
	case "assistant":
		for _, b := range message.Prop("content").Array() {
			switch t, _ := str(b, "type"); t {
			case "text":
				chars += strLen(b, "text")
			case "thinking":
				chars += strLen(b, "thinking")
			case "toolCall":
				chars += strLen(b, "name") + safeJSONLen(b.Prop("arguments"))
			}
		}
	case "bashExecution":
		chars = strLen(message, "command") + strLen(message, "output")
	case "branchSummary", "compactionSummary":
		chars = strLen(message, "summary")
	default:
		return 0
	}
	return (chars + 3) / 4
}

// number is a usage field as a JS number: NaN when it is not a number, so
// that a missing part poisons the sum as undefined does in JS.
func number(v pi.JSONValue, key string) float64 {
	f := v.Prop(key)
	if f.Kind() != pi.Number {
		return math.NaN()
	}
	return f.Number()
}

// contextTokens is calculateContextTokens: totalTokens, or the sum of the
// parts when totalTokens is 0.
func contextTokens(usage pi.JSONValue) float64 {
	if t := number(usage, "totalTokens"); t != 0 && !math.IsNaN(t) {
		return t
	}
	return number(usage, "input") + number(usage, "output") + number(usage, "cacheRead") + number(usage, "cacheWrite")
}

// assistantUsage is getAssistantUsage: the usage of an assistant message
// that neither aborted nor failed and reports a positive context size.
func assistantUsage(message pi.JSONValue) (pi.JSONValue, bool) {
	if role, _ := str(message, "role"); role != "assistant" {
		return pi.JSONValue{}, false
	}
	usage := message.Prop("usage")
	stop, _ := str(message, "stopReason")
	if stop == "aborted" || stop == "error" || usage.Kind() != pi.Object || !(contextTokens(usage) > 0) {
		return pi.JSONValue{}, false
	}
	return usage, true
}

// errUndefinedMessage is V8's TypeError when estimateContextTokens reads the
// role of an undefined message (an entry of an unknown type in context).
var errUndefinedMessage = errors.New("Cannot read properties of undefined (reading 'role')")

// EstimateContextTokens is estimateContextTokens(messages).tokens: the last
// usable assistant usage plus the estimates of the messages after it, or the
// sum of every message's estimate when none reports usage. An undefined
// message the walk from the end reaches throws, as in JS.
func EstimateContextTokens(messages []pi.JSONValue) (float64, error) {
	for i := len(messages) - 1; i >= 0; i-- {
		if messages[i].IsUndefined() {
			return 0, errUndefinedMessage
		}
		usage, ok := assistantUsage(messages[i])
		if !ok {
			continue
		}
		total := contextTokens(usage)
		for _, m := range messages[i+1:] {
			total += float64(EstimateTokens(m))
		}
		return total, nil
	}
	total := 0.0
	for _, m := range messages {
		total += float64(EstimateTokens(m))
	}
	return total, nil
}
