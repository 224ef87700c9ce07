package wire

import (
	"fmt"
	"slices"
	"strings"
)

func validateChat(body map[string]any, opts Options) error {
	const w = OpenAIChat
	raw, ok := asArr(body["messages"])
	if !ok || len(raw) == 0 {
		return reject(w, "messages.required", "[] is too short - 'messages'")
	}
	msgs := make([]map[string]any, len(raw))
	for i, rm := range raw {
		m, ok := asObj(rm)
		if !ok {
			return reject(w, "message.type", "Invalid type for 'messages.[%d]': expected an object.", i)
		}
		msgs[i] = m
		if err := chatMessage(i, m, opts); err != nil {
			return err
		}
	}
	seenCall := map[string]bool{}
	for i := 0; i < len(msgs); i++ {
		m := msgs[i]
		switch str(m, "role") {
		case "tool":
			// A tool message reached here outside a tool_calls run.
			return reject(w, "tool.orphan", "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.")
		case "assistant":
			calls, _ := asArr(m["tool_calls"])
			if len(calls) == 0 {
				continue
			}
			var ids []string
			for k, rc := range calls {
				c, _ := asObj(rc)
				id := str(c, "id")
				if seenCall[id] {
					return strict(w, "tool_call.unique", "messages.[%d].tool_calls.[%d]: tool_call_id %s is used by more than one call", i, k, id)
				}
				seenCall[id] = true
				ids = append(ids, id)
			}
			answered := map[string]bool{}
			j := i + 1
			for ; j < len(msgs) && str(msgs[j], "role") == "tool"; j++ {
				id := str(msgs[j], "tool_call_id")
				if !slices.Contains(ids, id) {
					return reject(w, "tool.orphan", "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.")
				}
				if answered[id] {
					return strict(w, "tool.duplicate", "messages.[%d]: tool_call_id %s is answered by more than one tool message", j, id)
				}
				answered[id] = true
			}
			var missing []string
			for _, id := range ids {
				if !answered[id] {
					missing = append(missing, id)
				}
			}
			if len(missing) > 0 {
				return reject(w, "tool_call.unanswered", "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: %s", strings.Join(missing, ", "))
			}
			i = j - 1
		}
	}
	return nil
}

func chatMessage(i int, m map[string]any, opts Options) error {
	const w = OpenAIChat
	role := str(m, "role")
	switch role {
	case "system", "developer":
		if _, ok := chatText(m["content"]); !ok {
			return reject(w, "content.type", "Invalid type for 'messages.[%d].content': expected one of a string or array of objects, but got %s instead.", i, jsType(m["content"]))
		}
	case "user":
		return chatUserContent(i, m["content"], opts)
	case "assistant":
		calls, hasCalls := asArr(m["tool_calls"])
		if _, present := m["tool_calls"]; present && !hasCalls {
			return reject(w, "tool_calls.type", "Invalid type for 'messages.[%d].tool_calls': expected an array of objects.", i)
		}
		if m["content"] == nil && len(calls) == 0 {
			return reject(w, "assistant.content", "Invalid value for 'content': expected a string, got null.")
		}
		if m["content"] != nil {
			if _, ok := chatText(m["content"]); !ok {
				return reject(w, "content.type", "Invalid type for 'messages.[%d].content': expected one of a string or array of objects, but got %s instead.", i, jsType(m["content"]))
			}
		}
		for k, rc := range calls {
			c, ok := asObj(rc)
			fn, _ := asObj(c["function"])
			if !ok || str(c, "id") == "" || str(c, "type") != "function" || fn == nil || str(fn, "name") == "" {
				return reject(w, "tool_call.fields", "Missing required parameter: 'messages.[%d].tool_calls.[%d].function'.", i, k)
			}
			args, ok := asStr(fn["arguments"])
			if !ok {
				return reject(w, "tool_call.arguments", "Invalid type for 'messages.[%d].tool_calls.[%d].function.arguments': expected a string, but got %s instead.", i, k, jsType(fn["arguments"]))
			}
			if !validJSONText(args) {
				return strict(w, "tool_call.arguments_json", "messages.[%d].tool_calls.[%d].function.arguments is not JSON text", i, k)
			}
		}
	case "tool":
		if str(m, "tool_call_id") == "" {
			return reject(w, "tool.id", "Missing required parameter: 'messages.[%d].tool_call_id'.", i)
		}
		if arr, ok := asArr(m["content"]); ok {
			for _, rp := range arr {
				if p, _ := asObj(rp); str(p, "type") == "image_url" {
					return reject(w, "tool.image", "Image URLs are only allowed for messages with role 'user', but this message with role 'tool' contains an image URL.")
				}
			}
		}
		if _, ok := chatText(m["content"]); !ok {
			return reject(w, "content.type", "Invalid type for 'messages.[%d].content': expected one of a string or array of objects, but got %s instead.", i, jsType(m["content"]))
		}
	default:
		return reject(w, "role", "Invalid value: '%s'. Supported values are: 'system', 'assistant', 'user', 'function', 'tool', and 'developer'.", role)
	}
	return nil
}

// chatText accepts a string or an array of text parts.
func chatText(v any) (string, bool) {
	if s, ok := asStr(v); ok {
		return s, true
	}
	arr, ok := asArr(v)
	if !ok {
		return "", false
	}
	var b strings.Builder
	for _, rp := range arr {
		p, ok := asObj(rp)
		if !ok || str(p, "type") != "text" {
			return "", false
		}
		if _, ok := asStr(p["text"]); !ok {
			return "", false
		}
		b.WriteString(str(p, "text"))
	}
	return b.String(), true
}

func chatUserContent(i int, v any, opts Options) error {
	const w = OpenAIChat
	if _, ok := asStr(v); ok {
		return nil
	}
	arr, ok := asArr(v)
	if !ok {
		return reject(w, "content.type", "Invalid type for 'messages.[%d].content': expected one of a string or array of objects, but got %s instead.", i, jsType(v))
	}
	for k, rp := range arr {
		p, _ := asObj(rp)
		switch str(p, "type") {
		case "text":
			if _, ok := asStr(p["text"]); !ok {
				return reject(w, "text.type", "Missing required parameter: 'messages.[%d].content.[%d].text'.", i, k)
			}
		case "image_url":
			iu, _ := asObj(p["image_url"])
			if str(iu, "url") == "" {
				return reject(w, "image.url", "Missing required parameter: 'messages.[%d].content.[%d].image_url.url'.", i, k)
			}
			if !opts.Vision {
				return reject(w, "image.vision", "Invalid content type. image_url is only supported by certain models.")
			}
		default:
			return reject(w, "part.type", "Invalid value: '%s'. Supported values are: 'text', 'image_url', 'input_audio', 'refusal', 'audio', and 'file'.", str(p, "type"))
		}
	}
	return nil
}

func jsType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	case bool:
		return "a boolean"
	default:
		return fmt.Sprintf("%T", v)
	}
}
