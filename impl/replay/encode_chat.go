package replay

import (
	"strings"

	"github.com/frameproof/frameproof/impl/pi"
)

// encodeChat lays turns out as OpenAI Chat Completions messages: one
// assistant message per round carrying all its tool_calls, then one tool
// message per call in call order. Tool messages carry text only, so result
// images move to one user message after the round's tool messages.
// Reasoning never crosses: Chat Completions has no input form for it.
func encodeChat(turns []turn, t Target, o Options) pi.JSONValue {
	out := make([]pi.JSONValue, 0, len(turns)+1)
	if o.Principal != nil {
		out = append(out, obj(f("role", s("system")), f("content", s(o.Principal.Render()))))
	}
	for _, tr := range turns {
		if !tr.assistant {
			out = append(out, obj(f("role", s("user")), f("content", arr(chatParts(tr.parts)))))
			continue
		}
		var texts []string
		var calls []pi.JSONValue
		for _, b := range tr.blocks {
			switch b.kind {
			case blockText:
				texts = append(texts, b.text)
			case blockCall:
				calls = append(calls, obj(f("id", s(b.call.ID)), f("type", s("function")),
					f("function", obj(f("name", s(b.call.Name)), f("arguments", s(argsText(b.call.Arguments)))))))
			case blockReasoning:
				// not representable on this wire
			}
		}
		content := pi.NullValue()
		if len(texts) > 0 {
			content = s(strings.Join(texts, "\n"))
		}
		fields := []field{f("role", s("assistant")), f("content", content)}
		if len(calls) > 0 {
			fields = append(fields, f("tool_calls", arr(calls)))
		}
		out = append(out, obj(fields...))
		var images []part
		for _, r := range tr.results {
			var texts []string
			for _, p := range r.parts {
				if p.image != nil {
					images = append(images, p)
				} else {
					texts = append(texts, p.text)
				}
			}
			text := strings.Join(texts, "\n")
			if len(texts) == 0 {
				text = ToolImageNote
			}
			out = append(out, obj(f("role", s("tool")), f("tool_call_id", s(r.callID)), f("content", s(text))))
		}
		if len(images) > 0 {
			parts := append([]part{{text: ToolImagesLeadIn}}, images...)
			out = append(out, obj(f("role", s("user")), f("content", arr(chatParts(parts)))))
		}
	}
	return obj(f("model", s(t.Model)), f("messages", arr(out)))
}

func chatParts(parts []part) []pi.JSONValue {
	out := make([]pi.JSONValue, 0, len(parts))
	for _, p := range parts {
		if p.image != nil {
			out = append(out, obj(f("type", s("image_url")), f("image_url", obj(f("url", s(dataURL(p.image)))))))
		} else {
			out = append(out, obj(f("type", s("text")), f("text", s(p.text))))
		}
	}
	return out
}
