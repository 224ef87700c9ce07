package replay

import (
	"strings"

	"github.com/frameproof/frameproof/impl/pi"
)

type gemContent struct {
	role  string
	calls bool
	parts []pi.JSONValue
}

// encodeGemini lays turns out as Gemini contents. Consecutive model turns
// are combined (a function call turn must follow a user turn or a function
// response turn); all responses of one round form one user turn, in call
// order, so their count equals the call count. Gemini 3 nests result images
// in functionResponse.parts and requires a thought signature on function
// calls; older models get result images in a following user turn.
func encodeGemini(turns []turn, t Target, o Options) pi.JSONValue {
	var cs []gemContent
	for _, tr := range turns {
		if !tr.assistant {
			cs = append(cs, gemContent{role: "user", parts: gemParts(tr.parts)})
			continue
		}
		var parts []pi.JSONValue
		calls := false
		for _, b := range tr.blocks {
			switch b.kind {
			case blockReasoning:
				parts = append(parts, obj(f("thought", pi.BoolValue(true)), f("text", s(b.thinking.Thinking)),
					f("thoughtSignature", s(*b.thinking.ThinkingSignature))))
			case blockText:
				parts = append(parts, obj(f("text", s(b.text))))
			case blockCall:
				calls = true
				fields := []field{f("functionCall", obj(f("name", s(b.call.Name)), f("args", argsObject(b.call.Arguments))))}
				switch {
				case b.keepSig:
					fields = append(fields, f("thoughtSignature", s(*b.call.ThoughtSignature)))
				case t.gemini3():
					fields = append(fields, f("thoughtSignature", s(GeminiSkipSignature)))
				}
				parts = append(parts, obj(fields...))
			}
		}
		if n := len(cs); n > 0 && cs[n-1].role == "model" {
			cs[n-1].parts = append(cs[n-1].parts, parts...)
			cs[n-1].calls = cs[n-1].calls || calls
		} else {
			cs = append(cs, gemContent{role: "model", calls: calls, parts: parts})
		}
		if len(tr.results) == 0 {
			continue
		}
		var responses, images []pi.JSONValue
		for _, r := range tr.results {
			var texts []string
			var nested []pi.JSONValue
			for _, p := range r.parts {
				if p.image != nil {
					nested = append(nested, gemParts([]part{p})...)
				} else {
					texts = append(texts, p.text)
				}
			}
			key := "output"
			if r.isError {
				key = "error"
			}
			fr := []field{f("name", s(r.name)), f("response", obj(f(key, s(strings.Join(texts, "\n")))))}
			if len(nested) > 0 && t.gemini3() {
				fr = append(fr, f("parts", arr(nested)))
			} else {
				images = append(images, nested...)
			}
			responses = append(responses, obj(f("functionResponse", obj(fr...))))
		}
		cs = append(cs, gemContent{role: "user", parts: responses})
		if len(images) > 0 {
			cs = append(cs, gemContent{role: "user", parts: append([]pi.JSONValue{obj(f("text", s(GeminiToolImagesLeadIn)))}, images...)})
		}
	}
	if len(cs) > 0 && cs[0].role == "model" && cs[0].calls {
		cs = append([]gemContent{{role: "user", parts: []pi.JSONValue{obj(f("text", s(GeminiLeadIn)))}}}, cs...)
	}
	contents := make([]pi.JSONValue, len(cs))
	for i, c := range cs {
		contents[i] = obj(f("role", s(c.role)), f("parts", arr(c.parts)))
	}
	var fields []field
	if o.Principal != nil {
		fields = append(fields, f("systemInstruction", obj(f("parts", arr([]pi.JSONValue{obj(f("text", s(o.Principal.Render())))})))))
	}
	fields = append(fields, f("contents", arr(contents)))
	return obj(fields...)
}

func gemParts(parts []part) []pi.JSONValue {
	out := make([]pi.JSONValue, 0, len(parts))
	for _, p := range parts {
		if p.image != nil {
			out = append(out, obj(f("inlineData", obj(f("mimeType", s(p.image.MimeType)), f("data", s(p.image.Data))))))
		} else {
			out = append(out, obj(f("text", s(p.text))))
		}
	}
	return out
}
