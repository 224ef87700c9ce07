package provider

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/frameproof/frameproof/impl/frames"
	"github.com/frameproof/frameproof/impl/pi"
)

type responsesItem struct {
	Type      string   `json:"type"`
	ID        string   `json:"id"`
	CallID    string   `json:"call_id"`
	Name      string   `json:"name"`
	Arguments jsString `json:"arguments"`
	Phase     string   `json:"phase"`
	Summary   []struct {
		Text jsString `json:"text"`
	} `json:"summary"`
	Content []struct {
		Type    string   `json:"type"`
		Text    jsString `json:"text"`
		Refusal jsString `json:"refusal"`
	} `json:"content"`
}

type responsesEvent struct {
	Type         string          `json:"type"`
	OutputIndex  int             `json:"output_index"`
	SummaryIndex int             `json:"summary_index"`
	Delta        jsString        `json:"delta"`
	Arguments    jsString        `json:"arguments"`
	Item         json.RawMessage `json:"item"`
	Code         string          `json:"code"`
	Message      string          `json:"message"`
	Response     *struct {
		ID                string `json:"id"`
		Status            string `json:"status"`
		IncompleteDetails *struct {
			Reason string `json:"reason"`
		} `json:"incomplete_details"`
		Error *struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
		Usage *struct {
			InputTokens        int `json:"input_tokens"`
			OutputTokens       int `json:"output_tokens"`
			TotalTokens        int `json:"total_tokens"`
			InputTokensDetails *struct {
				CachedTokens int `json:"cached_tokens"`
			} `json:"input_tokens_details"`
			OutputTokensDetails *struct {
				ReasoningTokens int `json:"reasoning_tokens"`
			} `json:"output_tokens_details"`
		} `json:"usage"`
	} `json:"response"`
}

// responsesSlot tracks one output item being streamed.
type responsesSlot struct {
	index       int // content index
	kind        string
	summaryPart int // highest summary index seen (thinking)
}

// runOpenAIResponses adapts Responses API events: one content block per
// output item (reasoning → thinking, message → text, function_call →
// toolCall). Reasoning summaries are joined with "\n\n" as pi-ai does; the
// separator is streamed as a delta when the next summary part begins, so the
// deltas always add up to the authoritative end text.
func runOpenAIResponses(r io.Reader, em *emitter) error {
	run := &responsesRun{em: em, slots: map[int]*responsesSlot{}}
	_, err := ScanSSE(r, func(sse SSEEvent) error {
		var ev responsesEvent
		if err := decodeData(WireOpenAIResponses, sse, &ev); err != nil {
			return err
		}
		return run.event(ev)
	})
	if err != nil {
		return err
	}
	if !run.terminal {
		return truncatedError{"openai-responses stream ended before a terminal response event"}
	}
	if len(run.slots) > 0 {
		return fmt.Errorf("provider: openai-responses: stream completed with %d unfinished output items", len(run.slots))
	}
	return nil
}

// responsesRun is the state of one Responses stream: the open output items
// by output index, and whether a terminal response event has arrived.
type responsesRun struct {
	em       *emitter
	slots    map[int]*responsesSlot
	terminal bool
}

// event dispatches one decoded event to its handler; unknown types are ignored.
func (run *responsesRun) event(ev responsesEvent) error {
	em := run.em
	switch ev.Type {
	case "response.created":
		if ev.Response != nil {
			em.live.ResponseID = ev.Response.ID
		}
	case "response.output_item.added":
		return run.itemAdded(ev)
	case "response.reasoning_summary_part.added", "response.reasoning_summary_text.delta":
		run.summary(ev)
	case "response.output_text.delta", "response.refusal.delta":
		if s := run.slots[ev.OutputIndex]; s != nil && s.kind == "text" && ev.Delta != "" {
			em.grow(s.index, string(ev.Delta))
		}
	case "response.function_call_arguments.delta":
		if s := run.slots[ev.OutputIndex]; s != nil && s.kind == "toolCall" && ev.Delta != "" {
			em.growArgs(s.index, string(ev.Delta))
		}
	case "response.function_call_arguments.done":
		if s := run.slots[ev.OutputIndex]; s != nil && s.kind == "toolCall" {
			em.catchUpArgs(s.index, string(ev.Arguments))
		}
	case "response.output_item.done":
		return run.itemDone(ev)
	case "response.completed", "response.incomplete":
		run.terminal = true
		return run.finish(ev)
	case "response.failed":
		msg := "unknown error"
		if ev.Response != nil && ev.Response.Error != nil {
			msg = ev.Response.Error.Code + ": " + ev.Response.Error.Message
		}
		return fmt.Errorf("provider: openai-responses: response failed: %s", msg)
	case "error":
		return fmt.Errorf("provider: openai-responses: error %s: %s", ev.Code, ev.Message)
	}
	return nil
}

// itemAdded opens the content block of a new output item.
func (run *responsesRun) itemAdded(ev responsesEvent) error {
	var item responsesItem
	if err := json.Unmarshal(ev.Item, &item); err != nil {
		return fmt.Errorf("provider: openai-responses: output_item.added %d: %w", ev.OutputIndex, err)
	}
	if _, dup := run.slots[ev.OutputIndex]; dup {
		return fmt.Errorf("provider: openai-responses: output item %d added twice", ev.OutputIndex)
	}
	em := run.em
	switch item.Type {
	case "reasoning":
		run.slots[ev.OutputIndex] = &responsesSlot{index: em.open(Block{Type: "thinking"}), kind: "thinking", summaryPart: -1}
	case "message":
		run.slots[ev.OutputIndex] = &responsesSlot{index: em.open(Block{Type: "text"}), kind: "text"}
	case "function_call":
		i := em.open(Block{Type: "toolCall", ID: item.CallID + "|" + item.ID, Name: item.Name, Arguments: pi.EmptyObject()})
		run.slots[ev.OutputIndex] = &responsesSlot{index: i, kind: "toolCall"}
		if item.Arguments != "" {
			em.growArgs(i, string(item.Arguments))
		}
	}
	return nil
}

// summary streams a reasoning summary part or delta, emitting the "\n\n"
// separator when a later summary part begins.
func (run *responsesRun) summary(ev responsesEvent) {
	s := run.slots[ev.OutputIndex]
	if s == nil || s.kind != "thinking" {
		return
	}
	if ev.SummaryIndex > s.summaryPart {
		if s.summaryPart >= 0 {
			run.em.grow(s.index, "\n\n")
		}
		s.summaryPart = ev.SummaryIndex
	}
	if ev.Type == "response.reasoning_summary_text.delta" && ev.Delta != "" {
		run.em.grow(s.index, string(ev.Delta))
	}
}

// itemDone catches the block up to the item's authoritative final content,
// records its signature, and ends it.
func (run *responsesRun) itemDone(ev responsesEvent) error {
	s := run.slots[ev.OutputIndex]
	if s == nil {
		return nil
	}
	var item responsesItem
	if err := json.Unmarshal(ev.Item, &item); err != nil {
		return fmt.Errorf("provider: openai-responses: output_item.done %d: %w", ev.OutputIndex, err)
	}
	em := run.em
	b := em.block(s.index)
	switch s.kind {
	case "thinking":
		parts := make([]string, len(item.Summary))
		for i, p := range item.Summary {
			parts[i] = string(p.Text)
		}
		em.catchUp(s.index, strings.Join(parts, "\n\n"))
		var compact bytes.Buffer
		if json.Compact(&compact, ev.Item) == nil {
			b.ThinkingSignature = compact.String()
		}
	case "text":
		text := ""
		for _, c := range item.Content {
			if c.Type == "output_text" {
				text = pi.Concat(text, string(c.Text))
			} else {
				text = pi.Concat(text, string(c.Refusal))
			}
		}
		em.catchUp(s.index, text)
		sig, _ := json.Marshal(struct {
			V     int    `json:"v"`
			ID    string `json:"id"`
			Phase string `json:"phase,omitempty"`
		}{1, item.ID, item.Phase})
		b.TextSignature = string(sig)
	case "toolCall":
		if item.Arguments != "" {
			em.catchUpArgs(s.index, string(item.Arguments))
		}
	}
	em.end(s.index)
	delete(run.slots, ev.OutputIndex)
	return nil
}

// finish records the terminal response's id, usage and stop reason.
func (run *responsesRun) finish(ev responsesEvent) error {
	em := run.em
	resp := ev.Response
	if resp == nil {
		return fmt.Errorf("provider: openai-responses: %s without response", ev.Type)
	}
	if resp.ID != "" {
		em.live.ResponseID = resp.ID
	}
	if u := resp.Usage; u != nil {
		cached, reasoning := 0, 0
		if u.InputTokensDetails != nil {
			cached = u.InputTokensDetails.CachedTokens
		}
		if u.OutputTokensDetails != nil {
			reasoning = u.OutputTokensDetails.ReasoningTokens
		}
		em.live.Usage = Usage{Input: max(0, u.InputTokens-cached), Output: u.OutputTokens, CacheRead: cached,
			Reasoning: reasoning, TotalTokens: u.TotalTokens}
	}
	reason := ""
	if resp.IncompleteDetails != nil {
		reason = resp.IncompleteDetails.Reason
	}
	em.live.RawStopReason = resp.Status
	if reason != "" {
		em.live.RawStopReason = resp.Status + "." + reason
	}
	switch {
	case resp.Status == "completed":
		em.live.StopReason = "stop"
		for _, b := range em.live.Content {
			if b.Type == "toolCall" {
				em.live.StopReason = "toolUse"
			}
		}
	case resp.Status == "incomplete" && reason == "max_output_tokens":
		em.live.StopReason = "length"
	default:
		em.live.StopReason = "error"
		em.live.ErrorMessage = "Response incomplete: " + reason
	}
	return nil
}

// catchUp streams whatever the authoritative final text adds to what the
// deltas already carried. A final text that is not an extension replaces the
// block at its end event (the end is authoritative).
func (em *emitter) catchUp(i int, final string) {
	b := em.block(i)
	cur := b.Body()
	if pi.HasPrefixUTF16(final, cur) { // UTF-16 prefix: cur may end in a lone high surrogate
		if rest := pi.SliceUTF16(final, pi.UTF16Len(cur)); rest != "" {
			em.grow(i, rest)
		}
		return
	}
	if b.Type == "thinking" {
		b.Thinking = final
	} else {
		b.Text = final
	}
}

// catchUpArgs streams the rest of a tool call's complete argument JSON.
func (em *emitter) catchUpArgs(i int, full string) {
	cur := em.argBuf[i]
	if pi.HasPrefixUTF16(full, cur) {
		if rest := pi.SliceUTF16(full, pi.UTF16Len(cur)); rest != "" {
			em.growArgs(i, rest)
		}
		return
	}
	em.argBuf[i] = full
	em.block(i).Arguments = frames.ParseStreamingJSON(full)
}
