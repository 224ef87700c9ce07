package provider

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/frameproof/frameproof/impl/pi"
)

type geminiChunk struct {
	Candidates []struct {
		Content *struct {
			Parts []struct {
				Text             *jsString `json:"text"`
				Thought          bool      `json:"thought"`
				ThoughtSignature string    `json:"thoughtSignature"`
				FunctionCall     *struct {
					ID   string          `json:"id"`
					Name string          `json:"name"`
					Args json.RawMessage `json:"args"`
				} `json:"functionCall"`
			} `json:"parts"`
		} `json:"content"`
		FinishReason string `json:"finishReason"`
	} `json:"candidates"`
	UsageMetadata *struct {
		PromptTokenCount        int `json:"promptTokenCount"`
		CandidatesTokenCount    int `json:"candidatesTokenCount"`
		ThoughtsTokenCount      int `json:"thoughtsTokenCount"`
		CachedContentTokenCount int `json:"cachedContentTokenCount"`
		TotalTokenCount         int `json:"totalTokenCount"`
	} `json:"usageMetadata"`
	ResponseID string          `json:"responseId"`
	Error      json.RawMessage `json:"error"`
}

// runGemini adapts streamGenerateContent (alt=sse). Consecutive text parts
// (or consecutive thought parts) continue one block; a function call part
// is a complete tool call, started with its arguments and followed by one
// cumulative delta carrying their JSON, as the contract allows.
func runGemini(r io.Reader, em *emitter) error {
	cur := -1 // open text/thinking block
	calls := 0
	sawFinish := false
	closeCur := func() {
		if cur >= 0 {
			em.end(cur)
			cur = -1
		}
	}
	_, err := ScanSSE(r, func(sse SSEEvent) error {
		var c geminiChunk
		if err := decodeData(WireGemini, sse, &c); err != nil {
			return err
		}
		if len(c.Error) > 0 && string(c.Error) != "null" {
			return fmt.Errorf("provider: google-generative-ai: stream error: %s", compactBody(c.Error))
		}
		if em.live.ResponseID == "" {
			em.live.ResponseID = c.ResponseID
		}
		if len(c.Candidates) > 0 {
			cand := c.Candidates[0]
			if cand.Content != nil {
				for _, p := range cand.Content.Parts {
					if p.Text != nil {
						kind := "text"
						if p.Thought {
							kind = "thinking"
						}
						if cur < 0 || em.block(cur).Type != kind {
							closeCur()
							cur = em.open(Block{Type: kind})
						}
						b := em.block(cur)
						if p.ThoughtSignature != "" {
							if kind == "thinking" {
								b.ThinkingSignature = p.ThoughtSignature
							} else {
								b.TextSignature = p.ThoughtSignature
							}
						}
						if *p.Text != "" {
							em.grow(cur, string(*p.Text))
						}
					}
					if fc := p.FunctionCall; fc != nil {
						closeCur()
						calls++
						args, ok := argsValue(string(fc.Args))
						if !ok {
							args = pi.EmptyObject()
						}
						id := fc.ID
						if id == "" || em.hasToolID(id) {
							id = fmt.Sprintf("%s_%d", fc.Name, calls)
						}
						i := em.open(Block{Type: "toolCall", ID: id, Name: fc.Name, Arguments: args, ThoughtSignature: p.ThoughtSignature})
						em.growArgs(i, string(args.AppendJSON(nil)))
						em.end(i)
					}
				}
			}
			if cand.FinishReason != "" {
				sawFinish = true
				em.live.RawStopReason = cand.FinishReason
				switch cand.FinishReason {
				case "STOP":
					em.live.StopReason = "stop"
				case "MAX_TOKENS":
					em.live.StopReason = "length"
				default:
					em.live.StopReason = "error"
					em.live.ErrorMessage = "Provider stopped with: " + cand.FinishReason
				}
			}
		}
		if u := c.UsageMetadata; u != nil {
			em.live.Usage = Usage{
				Input:       u.PromptTokenCount - u.CachedContentTokenCount,
				Output:      u.CandidatesTokenCount + u.ThoughtsTokenCount,
				CacheRead:   u.CachedContentTokenCount,
				Reasoning:   u.ThoughtsTokenCount,
				TotalTokens: u.TotalTokenCount,
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	closeCur()
	if !sawFinish {
		return truncatedError{"google-generative-ai stream ended without a finish reason"}
	}
	if em.live.StopReason == "stop" && calls > 0 {
		em.live.StopReason = "toolUse"
	}
	return nil
}

func (em *emitter) hasToolID(id string) bool {
	n := 0
	for _, b := range em.live.Content {
		if b.Type == "toolCall" && b.ID == id {
			n++
		}
	}
	return n > 0
}
