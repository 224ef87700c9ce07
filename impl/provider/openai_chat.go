package provider

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/frameproof/frameproof/impl/pi"
)

type chatChunk struct {
	ID      string `json:"id"`
	Choices []struct {
		Delta *struct {
			Content          *jsString `json:"content"`
			ReasoningContent *jsString `json:"reasoning_content"`
			ToolCalls        []struct {
				Index    *int   `json:"index"`
				ID       string `json:"id"`
				Function *struct {
					Name      string   `json:"name"`
					Arguments jsString `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"delta"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens        int `json:"prompt_tokens"`
		CompletionTokens    int `json:"completion_tokens"`
		PromptTokensDetails *struct {
			CachedTokens int `json:"cached_tokens"`
		} `json:"prompt_tokens_details"`
		CompletionTokensDetails *struct {
			ReasoningTokens int `json:"reasoning_tokens"`
		} `json:"completion_tokens_details"`
	} `json:"usage"`
	Error json.RawMessage `json:"error"`
}

func chatStop(reason string) (stop, errMsg string) {
	switch reason {
	case "stop", "end":
		return "stop", ""
	case "length":
		return "length", ""
	case "tool_calls", "function_call":
		return "toolUse", ""
	}
	return "error", "Provider finish_reason: " + reason
}

// runOpenAIChat adapts Chat Completions chunks. The wire has no block
// boundaries: all content deltas form one text block and all reasoning
// deltas one thinking block (whose signature is the reasoning field name,
// as pi-ai records it); every block ends when the stream completes.
func runOpenAIChat(r io.Reader, em *emitter) error {
	text, thinking := -1, -1
	tools := map[int]int{} // tool_calls[].index → content index
	sawFinish, sawDone := false, false
	_, err := ScanSSE(r, func(sse SSEEvent) error {
		if sse.Data == "[DONE]" {
			sawDone = true
			return errStopSSE
		}
		var c chatChunk
		if err := decodeData(WireOpenAIChat, sse, &c); err != nil {
			return err
		}
		if len(c.Error) > 0 && string(c.Error) != "null" {
			return fmt.Errorf("provider: openai-completions: stream error: %s", compactBody(c.Error))
		}
		if em.live.ResponseID == "" {
			em.live.ResponseID = c.ID
		}
		if u := c.Usage; u != nil {
			cached := 0
			if u.PromptTokensDetails != nil {
				cached = u.PromptTokensDetails.CachedTokens
			}
			reasoning := 0
			if u.CompletionTokensDetails != nil {
				reasoning = u.CompletionTokensDetails.ReasoningTokens
			}
			input := max(0, u.PromptTokens-cached)
			em.live.Usage = Usage{Input: input, Output: u.CompletionTokens, CacheRead: cached, Reasoning: reasoning,
				TotalTokens: input + u.CompletionTokens + cached}
		}
		if len(c.Choices) == 0 {
			return nil
		}
		ch := c.Choices[0]
		if ch.FinishReason != nil && *ch.FinishReason != "" {
			em.live.RawStopReason = *ch.FinishReason
			em.live.StopReason, em.live.ErrorMessage = chatStop(*ch.FinishReason)
			sawFinish = true
		}
		d := ch.Delta
		if d == nil {
			return nil
		}
		if d.Content != nil && *d.Content != "" {
			if text < 0 {
				text = em.open(Block{Type: "text"})
			}
			em.grow(text, string(*d.Content))
		}
		if d.ReasoningContent != nil && *d.ReasoningContent != "" {
			if thinking < 0 {
				thinking = em.open(Block{Type: "thinking", ThinkingSignature: "reasoning_content"})
			}
			em.grow(thinking, string(*d.ReasoningContent))
		}
		for _, tc := range d.ToolCalls {
			if tc.Index == nil {
				return fmt.Errorf("provider: openai-completions: tool call delta without index")
			}
			i, ok := tools[*tc.Index]
			if !ok {
				name := ""
				if tc.Function != nil {
					name = tc.Function.Name
				}
				i = em.open(Block{Type: "toolCall", ID: tc.ID, Name: name, Arguments: pi.EmptyObject()})
				tools[*tc.Index] = i
			} else {
				b := em.block(i)
				if b.ID == "" {
					b.ID = tc.ID
				}
				if b.Name == "" && tc.Function != nil {
					b.Name = tc.Function.Name
				}
			}
			if tc.Function != nil && tc.Function.Arguments != "" {
				em.growArgs(i, string(tc.Function.Arguments))
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	if !sawFinish || !sawDone {
		return truncatedError{"openai-completions stream ended before finish_reason and [DONE]"}
	}
	em.endAll()
	return nil
}
