package replay

import "github.com/frameproof/frameproof/impl/pi"

type anthBlock struct {
	thinking bool // thinking or redacted_thinking
	v        pi.JSONValue
}

type anthMsg struct {
	role   string
	blocks []anthBlock
}

// encodeAnthropic lays turns out as Anthropic Messages. The API combines
// consecutive same-role turns; doing it here keeps the body explicit and
// lets the rules that apply to the combined turn be enforced: tool_result
// blocks first, thinking only as the leading run, and no thinking in a final
// assistant message (thinking is not enabled by this request).
func encodeAnthropic(turns []turn, t Target, o Options) pi.JSONValue {
	var msgs []anthMsg
	push := func(role string, blocks []anthBlock) {
		if len(blocks) == 0 {
			return
		}
		if n := len(msgs); n > 0 && msgs[n-1].role == role {
			for _, b := range blocks {
				if !b.thinking { // thinking after other blocks is not a leading run
					msgs[n-1].blocks = append(msgs[n-1].blocks, b)
				}
			}
			return
		}
		msgs = append(msgs, anthMsg{role: role, blocks: blocks})
	}
	for _, tr := range turns {
		if !tr.assistant {
			push("user", anthParts(tr.parts))
			continue
		}
		var blocks []anthBlock
		leading := true
		for _, b := range tr.blocks {
			switch b.kind {
			case blockReasoning:
				if !leading {
					continue
				}
				th := b.thinking
				if th.Redacted != nil && *th.Redacted {
					blocks = append(blocks, anthBlock{true, obj(f("type", s("redacted_thinking")), f("data", s(*th.ThinkingSignature)))})
				} else {
					blocks = append(blocks, anthBlock{true, obj(f("type", s("thinking")), f("thinking", s(th.Thinking)), f("signature", s(*th.ThinkingSignature)))})
				}
			case blockText:
				leading = false
				blocks = append(blocks, anthBlock{false, obj(f("type", s("text")), f("text", s(b.text)))})
			case blockCall:
				leading = false
				blocks = append(blocks, anthBlock{false, obj(f("type", s("tool_use")), f("id", s(b.call.ID)), f("name", s(b.call.Name)), f("input", argsObject(b.call.Arguments)))})
			}
		}
		push("assistant", blocks)
		if len(tr.results) > 0 {
			var rs []anthBlock
			for _, r := range tr.results {
				fields := []field{f("type", s("tool_result")), f("tool_use_id", s(r.callID)), f("content", arr(anthContent(r.parts)))}
				if r.isError {
					fields = append(fields, f("is_error", pi.BoolValue(true)))
				}
				rs = append(rs, anthBlock{false, obj(fields...)})
			}
			push("user", rs)
		}
	}
	if n := len(msgs); n > 0 && msgs[n-1].role == "assistant" {
		kept := msgs[n-1].blocks[:0:0]
		for _, b := range msgs[n-1].blocks {
			if !b.thinking {
				kept = append(kept, b)
			}
		}
		msgs[n-1].blocks = kept
	}
	out := make([]pi.JSONValue, 0, len(msgs))
	for _, m := range msgs {
		vs := make([]pi.JSONValue, len(m.blocks))
		for i, b := range m.blocks {
			vs[i] = b.v
		}
		out = append(out, obj(f("role", s(m.role)), f("content", arr(vs))))
	}
	maxTokens := o.MaxTokens
	if maxTokens == 0 {
		maxTokens = 4096
	}
	fields := []field{f("model", s(t.Model)), f("max_tokens", pi.NumberValue(float64(maxTokens)))}
	if o.Principal != nil {
		fields = append(fields, f("system", s(o.Principal.Render())))
	}
	fields = append(fields, f("messages", arr(out)))
	return obj(fields...)
}

func anthContent(parts []part) []pi.JSONValue {
	out := make([]pi.JSONValue, 0, len(parts))
	for _, p := range parts {
		if p.image != nil {
			out = append(out, obj(f("type", s("image")), f("source", obj(
				f("type", s("base64")), f("media_type", s(p.image.MimeType)), f("data", s(p.image.Data))))))
		} else {
			out = append(out, obj(f("type", s("text")), f("text", s(p.text))))
		}
	}
	return out
}

func anthParts(parts []part) []anthBlock {
	vs := anthContent(parts)
	out := make([]anthBlock, len(vs))
	for i, v := range vs {
		out[i] = anthBlock{false, v}
	}
	return out
}
