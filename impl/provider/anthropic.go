package provider

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/frameproof/frameproof/impl/pi"
)

// redactedThinkingText is the thinking text pi-ai gives a redacted block.
const redactedThinkingText = "[Reasoning redacted]"

type anthropicEvent struct {
	Type    string `json:"type"`
	Index   int    `json:"index"`
	Message *struct {
		ID    string          `json:"id"`
		Model string          `json:"model"`
		Usage *anthropicUsage `json:"usage"`
	} `json:"message"`
	ContentBlock *struct {
		Type      string          `json:"type"`
		Text      jsString        `json:"text"`
		Thinking  jsString        `json:"thinking"`
		Signature string          `json:"signature"`
		Data      string          `json:"data"`
		ID        string          `json:"id"`
		Name      string          `json:"name"`
		Input     json.RawMessage `json:"input"`
	} `json:"content_block"`
	Delta *struct {
		Type        string   `json:"type"`
		Text        jsString `json:"text"`
		Thinking    jsString `json:"thinking"`
		Signature   string   `json:"signature"`
		PartialJSON jsString `json:"partial_json"`
		StopReason  string   `json:"stop_reason"`
	} `json:"delta"`
	Usage *anthropicUsage `json:"usage"`
}

type anthropicUsage struct {
	InputTokens              *int `json:"input_tokens"`
	OutputTokens             *int `json:"output_tokens"`
	CacheReadInputTokens     *int `json:"cache_read_input_tokens"`
	CacheCreationInputTokens *int `json:"cache_creation_input_tokens"`
}

func (u *anthropicUsage) apply(dst *Usage) {
	set := func(p *int, f *int) {
		if p != nil {
			*f = *p
		}
	}
	set(u.InputTokens, &dst.Input)
	set(u.OutputTokens, &dst.Output)
	set(u.CacheReadInputTokens, &dst.CacheRead)
	set(u.CacheCreationInputTokens, &dst.CacheWrite)
	dst.TotalTokens = dst.Input + dst.Output + dst.CacheRead + dst.CacheWrite
}

func anthropicStop(reason string) (stop, errMsg string, err error) {
	switch reason {
	case "end_turn", "pause_turn", "stop_sequence":
		return "stop", "", nil
	case "max_tokens":
		return "length", "", nil
	case "tool_use":
		return "toolUse", "", nil
	case "refusal":
		return "error", "The model refused to complete the request", nil
	}
	return "", "", fmt.Errorf("provider: anthropic-messages: unhandled stop reason %q", reason)
}

// runAnthropic adapts Messages API events: one content block per wire
// content block, keyed by the wire index.
func runAnthropic(r io.Reader, em *emitter) error {
	run := &anthropicRun{em: em, byWire: map[int]int{}}
	clean, err := ScanSSE(r, func(sse SSEEvent) error {
		if sse.Event == "error" {
			return errors.New(sse.Data)
		}
		var ev anthropicEvent
		if err := decodeData(WireAnthropic, sse, &ev); err != nil {
			return err
		}
		return run.event(ev)
	})
	if err != nil {
		return err
	}
	if !run.sawStart || !run.sawStop {
		return truncatedError{"anthropic-messages stream ended before message_stop"}
	}
	_ = clean
	return nil
}

// anthropicRun is the state of one Messages stream.
type anthropicRun struct {
	em                *emitter
	byWire            map[int]int // wire index → content index
	sawStart, sawStop bool
}

// event dispatches one decoded event to its handler; unknown types are ignored.
func (run *anthropicRun) event(ev anthropicEvent) error {
	em := run.em
	switch ev.Type {
	case "message_start":
		run.sawStart = true
		if ev.Message != nil {
			em.live.ResponseID = ev.Message.ID
			if ev.Message.Usage != nil {
				ev.Message.Usage.apply(&em.live.Usage)
			}
		}
	case "content_block_start":
		return run.blockStart(ev)
	case "content_block_delta":
		run.blockDelta(ev)
	case "content_block_stop":
		if i, ok := run.byWire[ev.Index]; ok {
			em.end(i)
		}
	case "message_delta":
		if ev.Delta != nil && ev.Delta.StopReason != "" {
			stop, msg, err := anthropicStop(ev.Delta.StopReason)
			if err != nil {
				return err
			}
			em.live.RawStopReason = ev.Delta.StopReason
			em.live.StopReason = stop
			em.live.ErrorMessage = msg
		}
		if ev.Usage != nil {
			ev.Usage.apply(&em.live.Usage)
		}
	case "message_stop":
		run.sawStop = true
	}
	return nil
}

// blockStart opens the content block for a wire block pi keeps, streaming
// any content the start already carries as a delta.
func (run *anthropicRun) blockStart(ev anthropicEvent) error {
	cb := ev.ContentBlock
	if cb == nil {
		return fmt.Errorf("provider: anthropic-messages: content_block_start %d without content_block", ev.Index)
	}
	if _, dup := run.byWire[ev.Index]; dup {
		return fmt.Errorf("provider: anthropic-messages: content block %d started twice", ev.Index)
	}
	em, byWire := run.em, run.byWire
	switch cb.Type {
	case "text":
		byWire[ev.Index] = em.open(Block{Type: "text"})
		if cb.Text != "" { // stream a non-empty start as a delta
			em.grow(byWire[ev.Index], string(cb.Text))
		}
	case "thinking":
		byWire[ev.Index] = em.open(Block{Type: "thinking", ThinkingSignature: cb.Signature})
		if cb.Thinking != "" {
			em.grow(byWire[ev.Index], string(cb.Thinking))
		}
	case "redacted_thinking":
		byWire[ev.Index] = em.open(Block{Type: "thinking", Thinking: redactedThinkingText, ThinkingSignature: cb.Data, Redacted: true})
	case "tool_use":
		i := em.open(Block{Type: "toolCall", ID: cb.ID, Name: cb.Name, Arguments: pi.EmptyObject()})
		byWire[ev.Index] = i
		if v, ok := argsValue(string(cb.Input)); ok && !IsEmptyArgs(v) {
			// Complete input at start: stream it as one cumulative delta.
			em.growArgs(i, string(cb.Input))
		}
	default:
		return nil // server tools and other blocks are not pi content
	}
	return nil
}

// blockDelta applies a delta to its open block when the delta fits the
// block's type; a delta for an unknown or mismatched block is ignored.
func (run *anthropicRun) blockDelta(ev anthropicEvent) {
	i, ok := run.byWire[ev.Index]
	if !ok || ev.Delta == nil {
		return
	}
	em := run.em
	b := em.block(i)
	switch ev.Delta.Type {
	case "text_delta":
		if b.Type == "text" {
			em.grow(i, string(ev.Delta.Text))
		}
	case "thinking_delta":
		if b.Type == "thinking" {
			em.grow(i, string(ev.Delta.Thinking))
		}
	case "signature_delta":
		if b.Type == "thinking" {
			b.ThinkingSignature += ev.Delta.Signature
		}
	case "input_json_delta":
		if b.Type == "toolCall" {
			em.growArgs(i, string(ev.Delta.PartialJSON))
		}
	}
}
