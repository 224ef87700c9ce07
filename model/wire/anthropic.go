package wire

import (
	"fmt"
	"slices"
	"strings"
)

// anthropicMessage is one turn after the API's combining of consecutive
// same-role turns ("Consecutive user or assistant turns in your request will
// be combined into a single turn").
type anthropicMessage struct {
	role   string
	blocks []map[string]any
	empty  bool // some source turn had empty content
}

var anthropicImageTypes = []string{"image/jpeg", "image/png", "image/gif", "image/webp"}

func validateAnthropic(body map[string]any, opts Options) error {
	const w = Anthropic
	raw, ok := asArr(body["messages"])
	if !ok || len(raw) == 0 {
		return reject(w, "messages.required", "messages: at least one message is required")
	}
	var msgs []anthropicMessage
	for i, rm := range raw {
		m, ok := asObj(rm)
		if !ok {
			return reject(w, "message.type", "messages.%d: Input should be a valid dictionary", i)
		}
		role := str(m, "role")
		if role != "user" && role != "assistant" {
			return reject(w, "role", "messages.%d.role: Input should be 'user' or 'assistant'", i)
		}
		blocks, empty, err := anthropicBlocks(i, role, m["content"], opts)
		if err != nil {
			return err
		}
		if n := len(msgs); n > 0 && msgs[n-1].role == role {
			msgs[n-1].blocks = append(msgs[n-1].blocks, blocks...)
			msgs[n-1].empty = msgs[n-1].empty || empty
			continue
		}
		msgs = append(msgs, anthropicMessage{role: role, blocks: blocks, empty: empty})
	}
	thinkingEnabled := false
	if t, ok := asObj(body["thinking"]); ok && str(t, "type") == "enabled" {
		thinkingEnabled = true
	}
	seenUse := map[string]bool{}
	for i, m := range msgs {
		last := i == len(msgs)-1
		if (m.empty || len(m.blocks) == 0) && !(last && m.role == "assistant") {
			return reject(w, "content.empty", "messages.%d: all messages must have non-empty content except for the optional final assistant message", i)
		}
		if m.role == "assistant" {
			if err := anthropicThinkingOrder(i, m, last, thinkingEnabled); err != nil {
				return err
			}
			var uses []string
			for j, b := range m.blocks {
				if str(b, "type") != "tool_use" {
					continue
				}
				id := str(b, "id")
				if seenUse[id] {
					return reject(w, "tool_use.unique", "messages.%d.content.%d: `tool_use` ids must be unique", i, j)
				}
				seenUse[id] = true
				uses = append(uses, id)
			}
			if len(uses) > 0 {
				if err := anthropicAnswered(i, uses, msgs); err != nil {
					return err
				}
			}
			continue
		}
		// user: every tool_result answers a tool_use of the previous turn, once.
		var prevUses []string
		if i > 0 && msgs[i-1].role == "assistant" {
			for _, b := range msgs[i-1].blocks {
				if str(b, "type") == "tool_use" {
					prevUses = append(prevUses, str(b, "id"))
				}
			}
		}
		answered := map[string]bool{}
		for j, b := range m.blocks {
			if str(b, "type") != "tool_result" {
				continue
			}
			id := str(b, "tool_use_id")
			if !slices.Contains(prevUses, id) {
				return reject(w, "tool_result.unexpected", "messages.%d.content.%d: unexpected `tool_use_id` found in `tool_result` blocks: %s. Each `tool_result` block must have a corresponding `tool_use` block in the previous message.", i, j, id)
			}
			if answered[id] {
				return strict(w, "tool_result.duplicate", "messages.%d.content.%d: tool_use %s is answered by more than one tool_result", i, j, id)
			}
			answered[id] = true
		}
	}
	return nil
}

// anthropicAnswered checks that the turn after assistant turn i begins with
// one tool_result per tool_use of turn i.
func anthropicAnswered(i int, uses []string, msgs []anthropicMessage) error {
	const w = Anthropic
	var next []map[string]any
	if i+1 < len(msgs) && msgs[i+1].role == "user" {
		next = msgs[i+1].blocks
	}
	present := map[string]bool{}
	leading := 0
	stillLeading := true
	for _, b := range next {
		if str(b, "type") == "tool_result" {
			present[str(b, "tool_use_id")] = true
			if stillLeading {
				leading++
			}
		} else {
			stillLeading = false
		}
	}
	var missing []string
	for _, id := range uses {
		if !present[id] {
			missing = append(missing, id)
		}
	}
	if len(missing) > 0 {
		return reject(w, "tool_use.unanswered", "messages.%d: `tool_use` ids were found without `tool_result` blocks immediately after: %s. Each `tool_use` block must have a corresponding `tool_result` block in the next message.", i, strings.Join(missing, ", "))
	}
	if leading < len(uses) {
		return reject(w, "tool_result.not_first", "messages.%d: Did not find %d tool_result block(s) at the beginning of this message. Messages following tool_use blocks must begin with a matching number of tool_result blocks.", i+1, len(uses)-leading)
	}
	return nil
}

func anthropicThinkingOrder(i int, m anthropicMessage, last, thinkingEnabled bool) error {
	const w = Anthropic
	hasThinking := false
	for _, b := range m.blocks {
		if t := str(b, "type"); t == "thinking" || t == "redacted_thinking" {
			hasThinking = true
		}
	}
	if !hasThinking {
		return nil
	}
	first := str(m.blocks[0], "type")
	if first != "thinking" && first != "redacted_thinking" {
		return reject(w, "thinking.first", "messages.%d: If an assistant message contains any thinking blocks, the first block must be thinking or redacted_thinking. Found %s.", i, first)
	}
	if t := str(m.blocks[len(m.blocks)-1], "type"); t == "thinking" || t == "redacted_thinking" {
		return reject(w, "thinking.final_block", "messages.%d: The final block in an assistant message cannot be `thinking`.", i)
	}
	if last && !thinkingEnabled {
		return reject(w, "thinking.final_disabled", "messages.%d: When thinking is disabled, an `assistant` message in the final position cannot contain `thinking`.", i)
	}
	return nil
}

// anthropicBlocks normalizes one turn's content to blocks and checks each.
func anthropicBlocks(i int, role string, content any, opts Options) ([]map[string]any, bool, error) {
	const w = Anthropic
	if s, ok := asStr(content); ok {
		if s == "" {
			return nil, true, nil
		}
		return []map[string]any{{"type": "text", "text": s}}, false, nil
	}
	arr, ok := asArr(content)
	if !ok {
		return nil, false, reject(w, "content.type", "messages.%d.content: Input should be a valid string or list", i)
	}
	out := make([]map[string]any, 0, len(arr))
	for j, rb := range arr {
		b, ok := asObj(rb)
		if !ok {
			return nil, false, reject(w, "block.type", "messages.%d.content.%d: Input should be a valid dictionary", i, j)
		}
		if err := anthropicBlock(fmt.Sprintf("messages.%d.content.%d", i, j), role, b, opts); err != nil {
			return nil, false, err
		}
		out = append(out, b)
	}
	return out, len(arr) == 0, nil
}

func anthropicBlock(path, role string, b map[string]any, opts Options) error {
	const w = Anthropic
	switch t := str(b, "type"); t {
	case "text":
		if str(b, "text") == "" {
			return reject(w, "text.empty", "%s: text content blocks must be non-empty", path)
		}
	case "image":
		return anthropicImage(path, b, opts)
	case "tool_use":
		if role != "assistant" {
			return strict(w, "tool_use.role", "%s: tool_use blocks belong to assistant turns", path)
		}
		if str(b, "id") == "" || str(b, "name") == "" {
			return reject(w, "tool_use.fields", "%s.id: Field required", path)
		}
		if _, ok := asObj(b["input"]); !ok {
			return reject(w, "tool_use.input", "%s.input: Input should be a valid dictionary", path)
		}
	case "tool_result":
		if role != "user" {
			return strict(w, "tool_result.role", "%s: tool_result blocks belong to user turns", path)
		}
		if str(b, "tool_use_id") == "" {
			return reject(w, "tool_result.fields", "%s.tool_use_id: Field required", path)
		}
		isErr, _ := b["is_error"].(bool)
		empty := true
		switch c := b["content"].(type) {
		case nil:
		case string:
			empty = c == ""
		case []any:
			for k, rp := range c {
				p, ok := asObj(rp)
				if !ok {
					return reject(w, "tool_result.content", "%s.content.%d: Input should be a valid dictionary", path, k)
				}
				switch str(p, "type") {
				case "text":
					if str(p, "text") == "" {
						return reject(w, "text.empty", "%s.content.%d: text content blocks must be non-empty", path, k)
					}
				case "image":
					if err := anthropicImage(fmt.Sprintf("%s.content.%d", path, k), p, opts); err != nil {
						return err
					}
				default:
					return reject(w, "tool_result.content", "%s.content.%d.type: Input tag '%s' found using 'type' does not match any of the expected tags: 'text', 'image', 'search_result'", path, k, str(p, "type"))
				}
				empty = false
			}
		default:
			return reject(w, "tool_result.content", "%s.content: Input should be a valid string or list", path)
		}
		if isErr && empty {
			return reject(w, "tool_result.empty_error", "%s: tool_result: content cannot be empty if `is_error` is true", path)
		}
	case "thinking":
		if role != "assistant" {
			return strict(w, "thinking.role", "%s: thinking blocks belong to assistant turns", path)
		}
		sig, ok := asStr(b["signature"])
		if !ok || sig == "" {
			return reject(w, "thinking.signature", "%s.thinking.signature: Field required", path)
		}
		if _, ok := asStr(b["thinking"]); !ok {
			return reject(w, "thinking.text", "%s.thinking.thinking: Field required", path)
		}
		if opts.SignatureValid != nil && !opts.SignatureValid(sig) {
			return reject(w, "thinking.signature_invalid", "%s: Invalid `signature` in `thinking` block", path)
		}
	case "redacted_thinking":
		if role != "assistant" {
			return strict(w, "thinking.role", "%s: redacted_thinking blocks belong to assistant turns", path)
		}
		if str(b, "data") == "" {
			return reject(w, "redacted.data", "%s.redacted_thinking.data: Field required", path)
		}
	default:
		return reject(w, "block.type", "%s.type: Input tag '%s' found using 'type' does not match any of the expected tags", path, t)
	}
	return nil
}

func anthropicImage(path string, b map[string]any, opts Options) error {
	const w = Anthropic
	src, _ := asObj(b["source"])
	if src == nil || str(src, "type") != "base64" || str(src, "data") == "" {
		return reject(w, "image.source", "%s.source: Field required", path)
	}
	if mt := str(src, "media_type"); !slices.Contains(anthropicImageTypes, mt) {
		return reject(w, "image.media_type", "%s.source.base64.media_type: Input should be 'image/jpeg', 'image/png', 'image/gif' or 'image/webp'", path)
	}
	if !opts.Vision {
		return strict(w, "image.vision", "%s: image input sent to a model that does not accept images", path)
	}
	return nil
}
