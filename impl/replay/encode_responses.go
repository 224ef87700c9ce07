package replay

import (
	"strings"

	"github.com/frameproof/frameproof/impl/pi"
)

// encodeResponses lays turns out as OpenAI Responses input items: assistant
// blocks in stored order (reasoning items, assistant messages,
// function_call items), then one function_call_output per call in call
// order. Message and function_call items carry no `id` (only a reasoning
// item keeps the rs_ id of its stored item); a reasoning item is kept only
// when an item of its own turn follows it, as the API requires.
func encodeResponses(turns []turn, t Target, o Options) pi.JSONValue {
	items := make([]pi.JSONValue, 0, len(turns)*2)
	for _, tr := range turns {
		if !tr.assistant {
			items = append(items, obj(f("type", s("message")), f("role", s("user")), f("content", arr(responsesParts(tr.parts)))))
			continue
		}
		// A reasoning block crosses only if a text or call of this turn follows.
		lastSpeech := -1
		for i, b := range tr.blocks {
			if b.kind != blockReasoning {
				lastSpeech = i
			}
		}
		for i, b := range tr.blocks {
			switch b.kind {
			case blockReasoning:
				if i < lastSpeech {
					item, _ := responsesReasoningItem(*b.thinking.ThinkingSignature)
					items = append(items, item)
				}
			case blockText:
				items = append(items, obj(f("type", s("message")), f("role", s("assistant")),
					f("content", arr([]pi.JSONValue{obj(f("type", s("output_text")), f("text", s(b.text)))}))))
			case blockCall:
				items = append(items, obj(f("type", s("function_call")), f("call_id", s(b.call.ID)),
					f("name", s(b.call.Name)), f("arguments", s(argsText(b.call.Arguments)))))
			}
		}
		for _, r := range tr.results {
			items = append(items, obj(f("type", s("function_call_output")), f("call_id", s(r.callID)), f("output", responsesOutput(r.parts))))
		}
	}
	fields := []field{f("model", s(t.Model))}
	if o.Principal != nil {
		fields = append(fields, f("instructions", s(o.Principal.Render())))
	}
	fields = append(fields, f("input", arr(items)))
	return obj(fields...)
}

// responsesOutput is a plain string unless the result holds images.
func responsesOutput(parts []part) pi.JSONValue {
	var texts []string
	for _, p := range parts {
		if p.image != nil {
			return arr(responsesParts(parts))
		}
		texts = append(texts, p.text)
	}
	return s(strings.Join(texts, "\n"))
}

func responsesParts(parts []part) []pi.JSONValue {
	out := make([]pi.JSONValue, 0, len(parts))
	for _, p := range parts {
		if p.image != nil {
			out = append(out, obj(f("type", s("input_image")), f("image_url", s(dataURL(p.image))), f("detail", s("auto"))))
		} else {
			out = append(out, obj(f("type", s("input_text")), f("text", s(p.text))))
		}
	}
	return out
}
