package replay

import (
	"fmt"
	"strings"

	"github.com/frameproof/frameproof/impl/pi"
)

// kv builds an object from alternating keys and values.
func kv(pairs ...any) pi.JSONValue {
	o := pi.NewObject()
	for i := 0; i < len(pairs); i += 2 {
		var v pi.JSONValue
		switch x := pairs[i+1].(type) {
		case string:
			v = pi.StringValue(x)
		case bool:
			v = pi.BoolValue(x)
		case int:
			v = pi.NumberValue(float64(x))
		case []pi.JSONValue:
			if x == nil {
				x = []pi.JSONValue{}
			}
			v = pi.ArrayValue(x)
		case pi.JSONValue:
			v = x
		default:
			panic(fmt.Sprintf("kv: %T", x))
		}
		o.Set(pairs[i].(string), v)
	}
	return pi.ObjectValue(o)
}

func principalText(p Principal) string {
	lines := []string{
		"[Runtime principal — current facts for this request, not history]",
		"agent: " + p.Agent,
	}
	if p.Borrowed {
		lines = append(lines, "mode: borrowed user (intentional)")
	} else {
		lines = append(lines, "mode: dedicated resident")
	}
	lines = append(lines,
		fmt.Sprintf("actual: uid %d (%s)", p.UID, p.Account),
		"expected account: "+p.ExpectedAccount,
		"node: "+p.Node)
	if p.Account == p.ExpectedAccount {
		lines = append(lines, "drift: none")
	} else {
		lines = append(lines, "drift: running as "+p.Account+", not "+p.ExpectedAccount+" — do not assume "+p.ExpectedAccount+"'s permissions")
	}
	if p.Borrowed {
		lines = append(lines, "warning: you are borrowing "+p.ExpectedAccount+"'s Unix authority; every action runs with "+p.ExpectedAccount+"'s permissions")
	}
	return strings.Join(lines, "\n")
}

func args(c pi.ToolCall) pi.JSONValue {
	if c.Arguments.Kind() == pi.Object {
		return c.Arguments
	}
	return pi.EmptyObject()
}

func argsJSON(c pi.ToolCall) string { return string(args(c).AppendJSON(nil)) }

func joinTexts(items []Item) (string, int) {
	var texts []string
	for _, it := range items {
		if it.Kind == "text" {
			texts = append(texts, it.Text)
		}
	}
	return strings.Join(texts, "\n"), len(texts)
}

// ---- Anthropic ----

func anthropicItem(it Item) pi.JSONValue {
	if it.Kind == "image" {
		return kv("type", "image", "source", kv("type", "base64", "media_type", it.Image.MimeType, "data", it.Image.Data))
	}
	return kv("type", "text", "text", it.Text)
}

type anthropicTurn struct {
	role    string
	blocks  []pi.JSONValue
	thought []bool
}

func anthropic(turns []Turn, t Target, p *Principal) pi.JSONValue {
	var list []*anthropicTurn
	add := func(role string, blocks []pi.JSONValue, thought []bool) {
		if len(blocks) == 0 {
			return
		}
		if len(list) > 0 && list[len(list)-1].role == role {
			last := list[len(list)-1]
			for i := range blocks {
				if !thought[i] {
					last.blocks = append(last.blocks, blocks[i])
					last.thought = append(last.thought, false)
				}
			}
			return
		}
		list = append(list, &anthropicTurn{role: role, blocks: blocks, thought: thought})
	}
	for _, turn := range turns {
		var blocks []pi.JSONValue
		var thought []bool
		if turn.Role == "user" {
			for _, it := range turn.Items {
				blocks = append(blocks, anthropicItem(it))
				thought = append(thought, false)
			}
			add("user", blocks, thought)
			continue
		}
		sawSpeech := false
		for _, it := range turn.Items {
			switch it.Kind {
			case "reasoning":
				if sawSpeech {
					break
				}
				if it.Thinking.Redacted != nil && *it.Thinking.Redacted {
					blocks = append(blocks, kv("type", "redacted_thinking", "data", *it.Thinking.ThinkingSignature))
				} else {
					blocks = append(blocks, kv("type", "thinking", "thinking", it.Thinking.Thinking, "signature", *it.Thinking.ThinkingSignature))
				}
				thought = append(thought, true)
			case "text":
				sawSpeech = true
				blocks = append(blocks, kv("type", "text", "text", it.Text))
				thought = append(thought, false)
			case "call":
				sawSpeech = true
				blocks = append(blocks, kv("type", "tool_use", "id", it.Call.ID, "name", it.Call.Name, "input", args(it.Call)))
				thought = append(thought, false)
			}
		}
		add("assistant", blocks, thought)
		var results []pi.JSONValue
		var flags []bool
		for _, a := range turn.Answers {
			var content []pi.JSONValue
			for _, it := range a.Items {
				content = append(content, anthropicItem(it))
			}
			if a.IsError {
				results = append(results, kv("type", "tool_result", "tool_use_id", a.CallID, "content", content, "is_error", true))
			} else {
				results = append(results, kv("type", "tool_result", "tool_use_id", a.CallID, "content", content))
			}
			flags = append(flags, false)
		}
		add("user", results, flags)
	}
	var messages []pi.JSONValue
	for n, at := range list {
		var blocks []pi.JSONValue
		for i, b := range at.blocks {
			if n == len(list)-1 && at.role == "assistant" && at.thought[i] {
				continue // no thinking in a final assistant message
			}
			blocks = append(blocks, b)
		}
		messages = append(messages, kv("role", at.role, "content", blocks))
	}
	if p != nil {
		return kv("model", t.Model, "max_tokens", 4096, "system", principalText(*p), "messages", messages)
	}
	return kv("model", t.Model, "max_tokens", 4096, "messages", messages)
}

// ---- OpenAI Chat ----

func chatItems(items []Item) []pi.JSONValue {
	var out []pi.JSONValue
	for _, it := range items {
		if it.Kind == "image" {
			out = append(out, kv("type", "image_url", "image_url", kv("url", "data:"+it.Image.MimeType+";base64,"+it.Image.Data)))
		} else {
			out = append(out, kv("type", "text", "text", it.Text))
		}
	}
	return out
}

func chat(turns []Turn, t Target, p *Principal) pi.JSONValue {
	var messages []pi.JSONValue
	if p != nil {
		messages = append(messages, kv("role", "system", "content", principalText(*p)))
	}
	for _, turn := range turns {
		if turn.Role == "user" {
			messages = append(messages, kv("role", "user", "content", chatItems(turn.Items)))
			continue
		}
		text, n := joinTexts(turn.Items)
		var calls []pi.JSONValue
		for _, it := range turn.Items {
			if it.Kind == "call" {
				calls = append(calls, kv("id", it.Call.ID, "type", "function", "function", kv("name", it.Call.Name, "arguments", argsJSON(it.Call))))
			}
		}
		content := pi.NullValue()
		if n > 0 {
			content = pi.StringValue(text)
		}
		if len(calls) > 0 {
			messages = append(messages, kv("role", "assistant", "content", content, "tool_calls", calls))
		} else {
			messages = append(messages, kv("role", "assistant", "content", content))
		}
		var images []Item
		for _, a := range turn.Answers {
			text, n := joinTexts(a.Items)
			if n == 0 {
				text = seeImage
			}
			messages = append(messages, kv("role", "tool", "tool_call_id", a.CallID, "content", text))
			for _, it := range a.Items {
				if it.Kind == "image" {
					images = append(images, it)
				}
			}
		}
		if len(images) > 0 {
			messages = append(messages, kv("role", "user", "content", chatItems(append([]Item{{Kind: "text", Text: imagesLeadIn}}, images...))))
		}
	}
	return kv("model", t.Model, "messages", messages)
}

// ---- OpenAI Responses ----

func responsesItems(items []Item) []pi.JSONValue {
	var out []pi.JSONValue
	for _, it := range items {
		if it.Kind == "image" {
			out = append(out, kv("type", "input_image", "image_url", "data:"+it.Image.MimeType+";base64,"+it.Image.Data, "detail", "auto"))
		} else {
			out = append(out, kv("type", "input_text", "text", it.Text))
		}
	}
	return out
}

func responses(turns []Turn, t Target, p *Principal) pi.JSONValue {
	var input []pi.JSONValue
	for _, turn := range turns {
		if turn.Role == "user" {
			input = append(input, kv("type", "message", "role", "user", "content", responsesItems(turn.Items)))
			continue
		}
		for i, it := range turn.Items {
			switch it.Kind {
			case "reasoning":
				followed := false
				for _, later := range turn.Items[i+1:] {
					if later.Kind != "reasoning" {
						followed = true
					}
				}
				if followed {
					item, _ := reasoningItem(*it.Thinking.ThinkingSignature)
					input = append(input, item)
				}
			case "text":
				input = append(input, kv("type", "message", "role", "assistant", "content", []pi.JSONValue{kv("type", "output_text", "text", it.Text)}))
			case "call":
				input = append(input, kv("type", "function_call", "call_id", it.Call.ID, "name", it.Call.Name, "arguments", argsJSON(it.Call)))
			}
		}
		for _, a := range turn.Answers {
			hasImage := false
			for _, it := range a.Items {
				hasImage = hasImage || it.Kind == "image"
			}
			if hasImage {
				input = append(input, kv("type", "function_call_output", "call_id", a.CallID, "output", responsesItems(a.Items)))
			} else {
				text, _ := joinTexts(a.Items)
				input = append(input, kv("type", "function_call_output", "call_id", a.CallID, "output", text))
			}
		}
	}
	if p != nil {
		return kv("model", t.Model, "instructions", principalText(*p), "input", input)
	}
	return kv("model", t.Model, "input", input)
}

// ---- Gemini ----

func geminiItems(items []Item) []pi.JSONValue {
	var out []pi.JSONValue
	for _, it := range items {
		if it.Kind == "image" {
			out = append(out, kv("inlineData", kv("mimeType", it.Image.MimeType, "data", it.Image.Data)))
		} else {
			out = append(out, kv("text", it.Text))
		}
	}
	return out
}

func gemini(turns []Turn, t Target, p *Principal) pi.JSONValue {
	g3 := strings.HasPrefix(t.Model, "gemini-3")
	type content struct {
		role     string
		hasCalls bool
		parts    []pi.JSONValue
	}
	var cs []content
	for _, turn := range turns {
		if turn.Role == "user" {
			cs = append(cs, content{role: "user", parts: geminiItems(turn.Items)})
			continue
		}
		var parts []pi.JSONValue
		hasCalls := false
		for _, it := range turn.Items {
			switch it.Kind {
			case "reasoning":
				parts = append(parts, kv("thought", true, "text", it.Thinking.Thinking, "thoughtSignature", *it.Thinking.ThinkingSignature))
			case "text":
				parts = append(parts, kv("text", it.Text))
			case "call":
				hasCalls = true
				fc := kv("name", it.Call.Name, "args", args(it.Call))
				if it.SigOK {
					parts = append(parts, kv("functionCall", fc, "thoughtSignature", *it.Call.ThoughtSignature))
				} else if g3 {
					parts = append(parts, kv("functionCall", fc, "thoughtSignature", geminiSkipSign))
				} else {
					parts = append(parts, kv("functionCall", fc))
				}
			}
		}
		if len(cs) > 0 && cs[len(cs)-1].role == "model" {
			cs[len(cs)-1].parts = append(cs[len(cs)-1].parts, parts...)
			cs[len(cs)-1].hasCalls = cs[len(cs)-1].hasCalls || hasCalls
		} else {
			cs = append(cs, content{role: "model", hasCalls: hasCalls, parts: parts})
		}
		if len(turn.Answers) == 0 {
			continue
		}
		var responses, later []pi.JSONValue
		for _, a := range turn.Answers {
			text, _ := joinTexts(a.Items)
			key := "output"
			if a.IsError {
				key = "error"
			}
			var imgs []Item
			for _, it := range a.Items {
				if it.Kind == "image" {
					imgs = append(imgs, it)
				}
			}
			if len(imgs) > 0 && g3 {
				responses = append(responses, kv("functionResponse", kv("name", a.Name, "response", kv(key, text), "parts", geminiItems(imgs))))
			} else {
				responses = append(responses, kv("functionResponse", kv("name", a.Name, "response", kv(key, text))))
				later = append(later, geminiItems(imgs)...)
			}
		}
		cs = append(cs, content{role: "user", parts: responses})
		if len(later) > 0 {
			cs = append(cs, content{role: "user", parts: append([]pi.JSONValue{kv("text", geminiImages)}, later...)})
		}
	}
	if cs[0].role == "model" && cs[0].hasCalls {
		cs = append([]content{{role: "user", parts: []pi.JSONValue{kv("text", geminiLeadIn)}}}, cs...)
	}
	var contents []pi.JSONValue
	for _, c := range cs {
		contents = append(contents, kv("role", c.role, "parts", c.parts))
	}
	if p != nil {
		return kv("systemInstruction", kv("parts", []pi.JSONValue{kv("text", principalText(*p))}), "contents", contents)
	}
	return kv("contents", contents)
}
