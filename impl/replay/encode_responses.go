package replay

// encodeResponses lays turns out as OpenAI Responses input items: assistant
// blocks in stored order (reasoning items, assistant messages,
// function_call items), then one function_call_output per call in call
// order. Message and function_call items carry no `id` (only a reasoning
// item keeps the rs_ id of its stored item); a reasoning item is kept only
// when an item of its own turn follows it, as the API requires.
func encodeResponses(w *jw, turns []turn, t Target, o Options) {
	w.raw(`{"model":`)
	w.str(t.Model)
	if o.Principal != nil {
		w.raw(`,"instructions":`)
		w.str(o.Principal.Render())
	}
	w.raw(`,"input":[`)
	n := 0 // items written
	next := func() { w.sep(n); n++ }
	var texts []string // scratch, reused across results
	for i := range turns {
		tr := &turns[i]
		if !tr.assistant {
			next()
			w.raw(`{"type":"message","role":"user","content":[`)
			w.responsesParts(tr.parts)
			w.raw(`]}`)
			continue
		}
		// A reasoning block crosses only if a text or call of this turn follows.
		lastSpeech := -1
		for j, b := range tr.blocks {
			if b.kind != blockReasoning {
				lastSpeech = j
			}
		}
		for j := range tr.blocks {
			b := &tr.blocks[j]
			switch b.kind {
			case blockReasoning:
				if j < lastSpeech {
					item, _ := responsesReasoningItem(*b.thinking().ThinkingSignature)
					next()
					w.value(item)
				}
			case blockText:
				next()
				w.raw(`{"type":"message","role":"assistant","content":[{"type":"output_text","text":`)
				w.str(b.text())
				w.raw(`}]}`)
			case blockCall:
				call := b.call()
				next()
				w.raw(`{"type":"function_call","call_id":`)
				w.str(call.ID)
				w.raw(`,"name":`)
				w.str(call.Name)
				w.raw(`,"arguments":`)
				w.argsText(call.Arguments)
				w.raw(`}`)
			}
		}
		for j := range tr.results {
			r := &tr.results[j]
			next()
			w.raw(`{"type":"function_call_output","call_id":`)
			w.str(r.callID)
			w.raw(`,"output":`)
			texts = w.responsesOutput(r.parts, texts[:0])
			w.raw(`}`)
		}
	}
	w.raw(`]}`)
}

// responsesOutput is a plain string unless the result holds images; texts
// is scratch space, returned for reuse.
func (w *jw) responsesOutput(parts []part, texts []string) []string {
	for _, p := range parts {
		if p.image != nil {
			w.raw(`[`)
			w.responsesParts(parts)
			w.raw(`]`)
			return texts
		}
		texts = append(texts, p.text)
	}
	if len(texts) == 0 {
		w.str("")
	} else {
		w.joined(texts)
	}
	return texts
}

func (w *jw) responsesParts(parts []part) {
	for i := range parts {
		w.sep(i)
		p := &parts[i]
		if p.image != nil {
			w.raw(`{"type":"input_image","image_url":`)
			w.str(dataURL(p.image))
			w.raw(`,"detail":"auto"}`)
			continue
		}
		w.raw(`{"type":"input_text","text":`)
		w.str(p.text)
		w.raw(`}`)
	}
}
