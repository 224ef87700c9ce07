package provider

import (
	"encoding/json"
	"fmt"
	"strings"
)

func rawJSON(s string) json.RawMessage { return json.RawMessage(s) }

// ---- Anthropic Messages ----

func renderAnthropic(sc Scenario) []sseEvent {
	tr, tp := sc.Truth, sc.Transport
	ev := func(name string, o obj) sseEvent { return sseEvent{name, jsonText(o)} }
	out := []sseEvent{ev("message_start", obj{{"type", "message_start"}, {"message", obj{
		{"id", tr.ResponseID}, {"type", "message"}, {"role", "assistant"}, {"model", tr.Model},
		{"content", []any{}}, {"stop_reason", nil}, {"stop_sequence", nil},
		{"usage", obj{{"input_tokens", tr.Usage.Input}, {"cache_creation_input_tokens", tr.Usage.CacheWrite},
			{"cache_read_input_tokens", tr.Usage.CacheRead}, {"output_tokens", 1}}},
	}}})}
	var blocks []blockEvents
	for i, b := range tr.Blocks {
		var be blockEvents
		start := func(cb obj) {
			be.start = []sseEvent{ev("content_block_start", obj{{"type", "content_block_start"}, {"index", i}, {"content_block", cb}})}
		}
		delta := func(d obj) {
			be.deltas = append(be.deltas, ev("content_block_delta", obj{{"type", "content_block_delta"}, {"index", i}, {"delta", d}}))
		}
		switch b.Kind {
		case KText:
			start(obj{{"type", "text"}, {"text", ""}})
			for _, p := range textPieces(b, b.Text) {
				delta(obj{{"type", "text_delta"}, {"text", p}})
			}
		case KThinking:
			start(obj{{"type", "thinking"}, {"thinking", ""}, {"signature", ""}})
			for _, p := range textPieces(b, b.Text) {
				delta(obj{{"type", "thinking_delta"}, {"thinking", p}})
			}
			if b.Signature != "" {
				delta(obj{{"type", "signature_delta"}, {"signature", b.Signature}})
			}
		case KRedacted:
			start(obj{{"type", "redacted_thinking"}, {"data", b.Signature}})
		case KToolCall:
			be.tool = true
			if tp.ArgsAtStart {
				start(obj{{"type", "tool_use"}, {"id", b.ToolID}, {"name", b.Name}, {"input", rawJSON(b.ArgsJSON)}})
			} else {
				start(obj{{"type", "tool_use"}, {"id", b.ToolID}, {"name", b.Name}, {"input", obj{}}})
				for _, p := range splitPieces(b.ArgsJSON, b.Pieces) {
					delta(obj{{"type", "input_json_delta"}, {"partial_json", p}})
				}
			}
		}
		be.end = []sseEvent{ev("content_block_stop", obj{{"type", "content_block_stop"}, {"index", i}})}
		blocks = append(blocks, be)
	}
	out = append(out, assemble(blocks, tp)...)
	stop := map[string]string{"stop": "end_turn", "length": "max_tokens", "toolUse": "tool_use"}[tr.StopReason()]
	if tp.Failure == FailErrorStop {
		stop = "refusal"
	}
	out = append(out,
		ev("message_delta", obj{{"type", "message_delta"}, {"delta", obj{{"stop_reason", stop}, {"stop_sequence", nil}}},
			{"usage", obj{{"output_tokens", tr.Usage.Output}}}}),
		ev("message_stop", obj{{"type", "message_stop"}}))
	return out
}

// ---- OpenAI Chat Completions ----

func renderChat(sc Scenario) []sseEvent {
	tr, tp := sc.Truth, sc.Transport
	chunk := func(delta obj, finish any) sseEvent {
		return sseEvent{"", jsonText(obj{{"id", tr.ResponseID}, {"object", "chat.completion.chunk"}, {"created", 1700000000},
			{"model", tr.Model}, {"choices", []any{obj{{"index", 0}, {"delta", delta}, {"finish_reason", finish}}}}})}
	}
	out := []sseEvent{chunk(obj{{"role", "assistant"}, {"content", ""}}, nil)}
	var blocks []blockEvents
	tool := 0
	for _, b := range tr.Blocks {
		var be blockEvents
		switch b.Kind {
		case KThinking:
			for _, p := range textPieces(b, b.Text) {
				be.deltas = append(be.deltas, chunk(obj{{"reasoning_content", p}}, nil))
			}
		case KText:
			for _, p := range textPieces(b, b.Text) {
				be.deltas = append(be.deltas, chunk(obj{{"content", p}}, nil))
			}
		case KToolCall:
			be.tool = true
			args := ""
			if tp.ArgsAtStart {
				args = b.ArgsJSON
			}
			be.start = []sseEvent{chunk(obj{{"tool_calls", []any{obj{{"index", tool}, {"id", b.ToolID}, {"type", "function"},
				{"function", obj{{"name", b.Name}, {"arguments", args}}}}}}}, nil)}
			if !tp.ArgsAtStart {
				for _, p := range splitPieces(b.ArgsJSON, b.Pieces) {
					be.deltas = append(be.deltas, chunk(obj{{"tool_calls", []any{obj{{"index", tool}, {"function", obj{{"arguments", p}}}}}}}, nil))
				}
			}
			tool++
		}
		blocks = append(blocks, be)
	}
	out = append(out, assemble(blocks, tp)...)
	finish := map[string]string{"stop": "stop", "length": "length", "toolUse": "tool_calls"}[tr.StopReason()]
	if tp.Failure == FailErrorStop {
		finish = "content_filter"
	}
	u := tr.Usage
	out = append(out, chunk(obj{}, finish),
		sseEvent{"", jsonText(obj{{"id", tr.ResponseID}, {"object", "chat.completion.chunk"}, {"created", 1700000000},
			{"model", tr.Model}, {"choices", []any{}}, {"usage", obj{
				{"prompt_tokens", u.Input + u.CacheRead}, {"completion_tokens", u.Output}, {"total_tokens", u.Input + u.CacheRead + u.Output},
				{"prompt_tokens_details", obj{{"cached_tokens", u.CacheRead}}},
				{"completion_tokens_details", obj{{"reasoning_tokens", u.Reasoning}}}}}})},
		sseEvent{"", "[DONE]"})
	return out
}

// ---- OpenAI Responses ----

// ResponsesItemIDs are the output item ids the renderer gives block k.
func responsesItemID(kind string, k int) string {
	switch kind {
	case KThinking:
		return fmt.Sprintf("rs_%d", k)
	case KText:
		return fmt.Sprintf("msg_%d", k)
	}
	return fmt.Sprintf("fc_%d", k)
}

// summaryParts splits a thinking text into reasoning summary parts; joining
// them with "\n\n" gives the text back. An empty text has no parts.
func summaryParts(text string) []string {
	if text == "" {
		return nil
	}
	return strings.Split(text, "\n\n")
}

func responsesReasoningItem(b TBlock, k int) obj {
	var summary []any
	for _, p := range summaryParts(b.Text) {
		summary = append(summary, obj{{"type", "summary_text"}, {"text", p}})
	}
	if summary == nil {
		summary = []any{}
	}
	item := obj{{"id", responsesItemID(KThinking, k)}, {"type", "reasoning"}, {"summary", summary}}
	if b.Signature != "" {
		item = append(item, kv{"encrypted_content", b.Signature})
	}
	return item
}

func responsesDoneItem(b TBlock, k int) obj {
	switch b.Kind {
	case KThinking:
		return responsesReasoningItem(b, k)
	case KText:
		return obj{{"id", responsesItemID(KText, k)}, {"type", "message"}, {"status", "completed"}, {"role", "assistant"},
			{"content", []any{obj{{"type", "output_text"}, {"text", b.Text}, {"annotations", []any{}}}}}}
	}
	return obj{{"id", responsesItemID(KToolCall, k)}, {"type", "function_call"}, {"status", "completed"},
		{"arguments", b.ArgsJSON}, {"call_id", b.ToolID}, {"name", b.Name}}
}

func renderResponses(sc Scenario) []sseEvent {
	tr, tp := sc.Truth, sc.Transport
	seq := 0
	ev := func(typ string, fields ...kv) sseEvent {
		o := append(obj{{"type", typ}, {"sequence_number", 0}}, fields...)
		return sseEvent{typ, jsonText(o)}
	}
	resp := func(status string, extra ...kv) obj {
		return append(obj{{"id", tr.ResponseID}, {"object", "response"}, {"created_at", 1700000000}, {"status", status}, {"model", tr.Model}}, extra...)
	}
	out := []sseEvent{ev("response.created", kv{"response", resp("in_progress", kv{"output", []any{}})}),
		ev("response.in_progress", kv{"response", resp("in_progress", kv{"output", []any{}})})}
	var blocks []blockEvents
	var items []any
	for k, b := range tr.Blocks {
		var be blockEvents
		id := responsesItemID(b.Kind, k)
		oi := kv{"output_index", k}
		iid := kv{"item_id", id}
		switch b.Kind {
		case KThinking:
			be.start = []sseEvent{ev("response.output_item.added", oi, kv{"item", obj{{"id", id}, {"type", "reasoning"}, {"summary", []any{}}}})}
			for j, part := range summaryParts(b.Text) {
				si := kv{"summary_index", j}
				be.deltas = append(be.deltas, ev("response.reasoning_summary_part.added", iid, oi, si, kv{"part", obj{{"type", "summary_text"}, {"text", ""}}}))
				for _, p := range textPieces(b, part) {
					be.deltas = append(be.deltas, ev("response.reasoning_summary_text.delta", iid, oi, si, kv{"delta", p}))
				}
				be.deltas = append(be.deltas, ev("response.reasoning_summary_text.done", iid, oi, si, kv{"text", part}),
					ev("response.reasoning_summary_part.done", iid, oi, si, kv{"part", obj{{"type", "summary_text"}, {"text", part}}}))
			}
		case KText:
			ci := kv{"content_index", 0}
			be.start = []sseEvent{ev("response.output_item.added", oi, kv{"item", obj{{"id", id}, {"type", "message"}, {"status", "in_progress"}, {"role", "assistant"}, {"content", []any{}}}}),
				ev("response.content_part.added", iid, oi, ci, kv{"part", obj{{"type", "output_text"}, {"text", ""}, {"annotations", []any{}}}})}
			for _, p := range textPieces(b, b.Text) {
				be.deltas = append(be.deltas, ev("response.output_text.delta", iid, oi, ci, kv{"delta", p}))
			}
			be.deltas = append(be.deltas, ev("response.output_text.done", iid, oi, ci, kv{"text", b.Text}),
				ev("response.content_part.done", iid, oi, ci, kv{"part", obj{{"type", "output_text"}, {"text", b.Text}, {"annotations", []any{}}}}))
		case KToolCall:
			be.tool = true
			args := ""
			if tp.ArgsAtStart {
				args = b.ArgsJSON
			}
			be.start = []sseEvent{ev("response.output_item.added", oi, kv{"item", obj{{"id", id}, {"type", "function_call"}, {"status", "in_progress"},
				{"arguments", args}, {"call_id", b.ToolID}, {"name", b.Name}}})}
			if !tp.ArgsAtStart {
				for _, p := range splitPieces(b.ArgsJSON, b.Pieces) {
					be.deltas = append(be.deltas, ev("response.function_call_arguments.delta", iid, oi, kv{"delta", p}))
				}
			}
			be.end = []sseEvent{ev("response.function_call_arguments.done", iid, oi, kv{"arguments", b.ArgsJSON})}
		}
		done := responsesDoneItem(b, k)
		items = append(items, done)
		be.end = append(be.end, ev("response.output_item.done", oi, kv{"item", done}))
		blocks = append(blocks, be)
	}
	out = append(out, assemble(blocks, tp)...)
	if items == nil {
		items = []any{}
	}
	u := tr.Usage
	usage := obj{{"input_tokens", u.Input + u.CacheRead}, {"input_tokens_details", obj{{"cached_tokens", u.CacheRead}}},
		{"output_tokens", u.Output}, {"output_tokens_details", obj{{"reasoning_tokens", u.Reasoning}}},
		{"total_tokens", u.Input + u.CacheRead + u.Output}}
	switch {
	case tp.Failure == FailErrorStop:
		out = append(out, ev("response.incomplete", kv{"response", resp("incomplete", kv{"incomplete_details", obj{{"reason", "content_filter"}}}, kv{"output", items}, kv{"usage", usage})}))
	case tr.Length:
		out = append(out, ev("response.incomplete", kv{"response", resp("incomplete", kv{"incomplete_details", obj{{"reason", "max_output_tokens"}}}, kv{"output", items}, kv{"usage", usage})}))
	default:
		out = append(out, ev("response.completed", kv{"response", resp("completed", kv{"output", items}, kv{"usage", usage})}))
	}
	// Number the events in stream order, as the API does.
	for i := range out {
		out[i].Data = strings.Replace(out[i].Data, `"sequence_number":0`, fmt.Sprintf(`"sequence_number":%d`, seq), 1)
		seq++
	}
	return out
}

// ---- Gemini streamGenerateContent ----

func renderGemini(sc Scenario) []sseEvent {
	tr := sc.Truth
	u := tr.Usage
	usage := obj{{"promptTokenCount", u.Input + u.CacheRead}, {"candidatesTokenCount", u.Output - u.Reasoning},
		{"totalTokenCount", u.Input + u.CacheRead + u.Output}, {"cachedContentTokenCount", u.CacheRead}, {"thoughtsTokenCount", u.Reasoning}}
	chunk := func(part obj) sseEvent {
		return sseEvent{"", jsonText(obj{{"candidates", []any{obj{{"content", obj{{"parts", []any{part}}, {"role", "model"}}}, {"index", 0}}}},
			{"usageMetadata", obj{{"promptTokenCount", u.Input + u.CacheRead}}}, {"modelVersion", tr.Model}, {"responseId", tr.ResponseID}})}
	}
	var out []sseEvent
	for _, b := range tr.Blocks {
		switch b.Kind {
		case KText, KThinking:
			for j, p := range textPieces(b, b.Text) {
				part := obj{{"text", p}}
				if b.Kind == KThinking {
					part = append(part, kv{"thought", true})
				}
				if j == 0 && b.Signature != "" {
					part = append(part, kv{"thoughtSignature", b.Signature})
				}
				out = append(out, chunk(part))
			}
		case KToolCall:
			fc := obj{{"name", b.Name}, {"args", rawJSON(b.ArgsJSON)}}
			if b.ToolID != "" {
				fc = append(fc, kv{"id", b.ToolID})
			}
			part := obj{{"functionCall", fc}}
			if b.Signature != "" {
				part = append(part, kv{"thoughtSignature", b.Signature})
			}
			out = append(out, chunk(part))
		}
	}
	finish := "STOP"
	if tr.Length {
		finish = "MAX_TOKENS"
	}
	if sc.Transport.Failure == FailErrorStop {
		finish = "SAFETY"
	}
	out = append(out, sseEvent{"", jsonText(obj{{"candidates", []any{obj{{"finishReason", finish}, {"index", 0}}}},
		{"usageMetadata", usage}, {"modelVersion", tr.Model}, {"responseId", tr.ResponseID}})})
	return out
}
