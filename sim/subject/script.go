package subject

import (
	"encoding/json"
	"fmt"

	"github.com/frameproof/frameproof/impl/pi"
	"github.com/frameproof/frameproof/sim/choice"
)

// scriptAPI is the api name a subject's scripted model reports.
const scriptAPI = "frameproof-scripted"

// ScriptErrors are the provider error messages a response may end with
// (errors: true): two every pi-ai's isRetryableAssistantError retries (its
// patterns "503", "service.?unavailable", "overloaded"), one none does,
// and two the releases disagree on (utils/retry.js): "520" is retried from
// pi-ai 0.87.1 on, "model is at capacity" only by 1.0.3, so a subject run
// against a release holds Options.ErrorPatterns to that release's lists.
var ScriptErrors = []string{"503 service unavailable", "overloaded_error: Overloaded", "invalid_request_error: bad request",
	"520 web server returned an unknown error", "The model is at capacity"}

// ScriptEnding draws one provider response as pi-ai streams it: start, one
// to three text or thinking blocks (start, deltas, end), done, each event
// carrying the partial as it was when the event was pushed; with errors,
// the response may instead end, after its blocks, with pi-ai's error event
// (stopReason "error" and one of ScriptErrors).
func ScriptEnding(src choice.Source, model string, now float64, errors bool) []*pi.Event {
	msg := &pi.AssistantMessage{Content: []pi.Content{}, API: scriptAPI, Provider: Provider, Model: model,
		StopReason: pi.StopStop, Timestamp: now}
	snap := func() *pi.AssistantMessage { return msg.Clone() }
	evs := []*pi.Event{{Type: pi.EventStart, Partial: snap()}}
	blocks := choice.Range(src, "script blocks", 1, 3)
	for b := 0; b < blocks; b++ {
		n := len(msg.Content)
		idx := pi.Index(n)
		thinking := choice.Chance(src, "script thinking", 1, 3)
		deltas := choice.Range(src, "script deltas", 1, 3)
		text := ""
		if thinking {
			msg.Content = append(msg.Content, pi.ThinkingContent{})
			evs = append(evs, &pi.Event{Type: pi.EventThinkingStart, ContentIndex: idx, Partial: snap()})
		} else {
			msg.Content = append(msg.Content, pi.TextContent{})
			evs = append(evs, &pi.Event{Type: pi.EventTextStart, ContentIndex: idx, Partial: snap()})
		}
		for d := 0; d < deltas; d++ {
			delta := fmt.Sprintf("b%dd%d ", b, d)
			text += delta
			typ := pi.EventTextDelta
			if thinking {
				typ = pi.EventThinkingDelta
				msg.Content[n] = pi.ThinkingContent{Thinking: text}
			} else {
				msg.Content[n] = pi.TextContent{Text: text}
			}
			evs = append(evs, &pi.Event{Type: typ, ContentIndex: idx, Delta: delta, Partial: snap()})
		}
		end := pi.EventTextEnd
		if thinking {
			end = pi.EventThinkingEnd
		}
		evs = append(evs, &pi.Event{Type: end, ContentIndex: idx, Content: text, Partial: snap()})
	}
	msg.Usage = pi.Usage{Input: 3, Output: 2, TotalTokens: 5}
	if errors && choice.Chance(src, "script error", 1, 2) {
		msg.StopReason = pi.StopError
		msg.ErrorMessage = pi.Str(ScriptErrors[src.Intn("script error message", len(ScriptErrors))])
		return append(evs, &pi.Event{Type: pi.EventError, Reason: pi.StopError, Message: snap()})
	}
	evs = append(evs, &pi.Event{Type: pi.EventDone, Reason: pi.StopStop, Message: snap()})
	return evs
}

// rawEvents renders events as pi-ai's JSON.
func rawEvents(evs []*pi.Event) []json.RawMessage {
	out := make([]json.RawMessage, len(evs))
	for i, e := range evs {
		out[i] = e.AppendJSON(nil)
	}
	return out
}
