package replay

// encodeChat lays turns out as OpenAI Chat Completions messages: one
// assistant message per round carrying all its tool_calls, then one tool
// message per call in call order. Tool messages carry text only, so result
// images move to one user message after the round's tool messages.
// Reasoning never crosses: Chat Completions has no input form for it.
func encodeChat(w *jw, turns []turn, t Target, o Options) {
	w.raw(`{"model":`)
	w.str(t.Model)
	w.raw(`,"messages":[`)
	n := 0 // messages written
	next := func() { w.sep(n); n++ }
	if o.Principal != nil {
		next()
		w.raw(`{"role":"system","content":`)
		w.str(o.Principal.Render())
		w.raw(`}`)
	}
	var texts []string // scratch, reused across turns
	for i := range turns {
		tr := &turns[i]
		if !tr.assistant {
			next()
			w.raw(`{"role":"user","content":[`)
			w.chatParts(tr.parts)
			w.raw(`]}`)
			continue
		}
		next()
		texts = w.chatAssistant(tr, texts)
		texts = w.chatResults(tr, texts, next)
	}
	w.raw(`]}`)
}

// chatAssistant writes the round's assistant message: its texts joined (or
// null) and every call in tool_calls. texts is scratch; it returns it.
func (w *jw) chatAssistant(tr *turn, texts []string) []string {
	w.raw(`{"role":"assistant","content":`)
	texts = texts[:0]
	calls := 0
	for _, b := range tr.blocks {
		switch b.kind {
		case blockText:
			texts = append(texts, b.text())
		case blockCall:
			calls++
		case blockReasoning:
			// not representable on this wire
		}
	}
	if len(texts) > 0 {
		w.joined(texts)
	} else {
		w.raw(`null`)
	}
	if calls > 0 {
		w.raw(`,"tool_calls":[`)
		c := 0
		for j := range tr.blocks {
			if tr.blocks[j].kind != blockCall {
				continue
			}
			call := tr.blocks[j].call()
			w.sep(c)
			c++
			w.raw(`{"id":`)
			w.str(call.ID)
			w.raw(`,"type":"function","function":{"name":`)
			w.str(call.Name)
			w.raw(`,"arguments":`)
			w.argsText(call.Arguments)
			w.raw(`}}`)
		}
		w.raw(`]`)
	}
	w.raw(`}`)
	return texts
}

// chatResults writes one tool message per result in call order, then the
// user message that carries the results' images. texts is scratch; it
// returns it.
func (w *jw) chatResults(tr *turn, texts []string, next func()) []string {
	images := 0
	for j := range tr.results {
		r := &tr.results[j]
		texts = texts[:0]
		for _, p := range r.parts {
			if p.image != nil {
				images++
			} else {
				texts = append(texts, p.text)
			}
		}
		next()
		w.raw(`{"role":"tool","tool_call_id":`)
		w.str(r.callID)
		w.raw(`,"content":`)
		if len(texts) == 0 {
			w.str(ToolImageNote)
		} else {
			w.joined(texts)
		}
		w.raw(`}`)
	}
	if images > 0 {
		next()
		w.raw(`{"role":"user","content":[`)
		w.chatPart(&part{text: ToolImagesLeadIn})
		for j := range tr.results {
			for k := range tr.results[j].parts {
				if p := &tr.results[j].parts[k]; p.image != nil {
					w.raw(`,`)
					w.chatPart(p)
				}
			}
		}
		w.raw(`]}`)
	}
	return texts
}

func (w *jw) chatParts(parts []part) {
	for i := range parts {
		w.sep(i)
		w.chatPart(&parts[i])
	}
}

func (w *jw) chatPart(p *part) {
	if p.image != nil {
		w.raw(`{"type":"image_url","image_url":{"url":`)
		w.str(dataURL(p.image))
		w.raw(`}}`)
		return
	}
	w.raw(`{"type":"text","text":`)
	w.str(p.text)
	w.raw(`}`)
}
