package replay

import "github.com/frameproof/frameproof/impl/pi"

// gemWriter writes Gemini contents as the turns arrive: the content open
// last takes the parts of a model turn that follows a model turn. Writing
// straight to the body keeps no per-part list, whose pointers the
// collector would scan and whose growth would copy, so a large transcript
// costs per message what a small one does.
type gemWriter struct {
	w        *jw
	gemini3  bool
	open     string // role of the content being written, "" before the first
	contents int    // contents begun
	parts    int    // parts written to the open content
}

// begin closes the open content and opens one for role.
func (g *gemWriter) begin(role string) {
	if g.open != "" {
		g.w.raw(`]}`)
	}
	g.w.sep(g.contents)
	g.contents++
	g.w.raw(`{"role":`)
	g.w.str(role)
	g.w.raw(`,"parts":[`)
	g.open, g.parts = role, 0
}

// part starts the next part of the open content.
func (g *gemWriter) part() {
	g.w.sep(g.parts)
	g.parts++
}

// encodeGemini lays turns out as Gemini contents. Consecutive model turns
// are combined (a function call turn must follow a user turn or a function
// response turn); all responses of one round form one user turn, in call
// order, so their count equals the call count. Gemini 3 nests result images
// in functionResponse.parts and requires a thought signature on function
// calls; older models get result images in a following user turn.
func encodeGemini(w *jw, turns []turn, t Target, o Options) {
	g := gemWriter{w: w, gemini3: t.gemini3()}
	w.raw(`{`)
	if o.Principal != nil {
		w.raw(`"systemInstruction":{"parts":[{"text":`)
		w.str(o.Principal.Render())
		w.raw(`}]},`)
	}
	w.raw(`"contents":[`)
	if firstGemContentCalls(turns) {
		w.raw(`{"role":"user","parts":[{"text":`)
		w.str(GeminiLeadIn)
		w.raw(`}]},`)
	}
	for i := range turns {
		tr := &turns[i]
		if !tr.assistant {
			g.begin("user")
			for j := range tr.parts {
				g.part()
				g.userPart(&tr.parts[j])
			}
			continue
		}
		if g.open != "model" {
			g.begin("model")
		}
		for j := range tr.blocks {
			g.block(&tr.blocks[j])
		}
		if len(tr.results) > 0 {
			g.results(tr.results)
		}
	}
	if g.open != "" {
		w.raw(`]}`)
	}
	w.raw(`]}`)
}

// firstGemContentCalls reports whether the first content is a model one
// holding a function call: the leading assistant turns, up to the first
// with results, combine into it.
func firstGemContentCalls(turns []turn) bool {
	for i := range turns {
		tr := &turns[i]
		if !tr.assistant {
			return false
		}
		for j := range tr.blocks {
			if tr.blocks[j].kind == blockCall {
				return true
			}
		}
		if len(tr.results) > 0 {
			return false
		}
	}
	return false
}

// block writes one assistant block as a model part (blocks of other kinds
// have none).
func (g *gemWriter) block(b *asstBlock) {
	w := g.w
	switch b.kind {
	case blockReasoning:
		g.part()
		th := b.thinking()
		w.raw(`{"thought":true,"text":`)
		w.str(th.Thinking)
		w.raw(`,"thoughtSignature":`)
		w.str(*th.ThinkingSignature)
		w.raw(`}`)
	case blockText:
		g.part()
		w.raw(`{"text":`)
		w.str(b.text())
		w.raw(`}`)
	case blockCall:
		g.part()
		sig := ""
		switch {
		case b.keepSig:
			sig = *b.call().ThoughtSignature
		case g.gemini3:
			sig = GeminiSkipSignature
		}
		w.gemCall(b, sig)
	}
}

// results writes one round's results as one user content, and before
// Gemini 3 their images as another after it.
func (g *gemWriter) results(rs []result) {
	g.begin("user")
	images := false
	for j := range rs {
		g.part()
		g.w.gemResponse(&rs[j], g.gemini3)
		images = images || hasImage(rs[j].parts)
	}
	if !images || g.gemini3 {
		return
	}
	g.begin("user")
	g.part()
	g.w.raw(`{"text":`)
	g.w.str(GeminiToolImagesLeadIn)
	g.w.raw(`}`)
	for j := range rs {
		for k := range rs[j].parts {
			if p := &rs[j].parts[k]; p.image != nil {
				g.part()
				g.w.gemImage(p.image)
			}
		}
	}
}

func (g *gemWriter) userPart(p *part) {
	if p.image != nil {
		g.w.gemImage(p.image)
		return
	}
	g.w.raw(`{"text":`)
	g.w.str(p.text)
	g.w.raw(`}`)
}

func hasImage(parts []part) bool {
	for _, p := range parts {
		if p.image != nil {
			return true
		}
	}
	return false
}

// gemCall writes a functionCall part, with sig as its thoughtSignature
// unless that is "".
func (w *jw) gemCall(b *asstBlock, sig string) {
	w.raw(`{"functionCall":{"name":`)
	call := b.call()
	w.str(call.Name)
	w.raw(`,"args":`)
	w.args(call.Arguments)
	w.raw(`}`)
	if sig != "" {
		w.raw(`,"thoughtSignature":`)
		w.str(sig)
	}
	w.raw(`}`)
}

// gemResponse writes one result: its texts joined under "output" (or
// "error"), and on Gemini 3 its images nested in parts.
func (w *jw) gemResponse(r *result, gemini3 bool) {
	w.raw(`{"functionResponse":{"name":`)
	w.str(r.name)
	if r.isError {
		w.raw(`,"response":{"error":`)
	} else {
		w.raw(`,"response":{"output":`)
	}
	var buf [4]string
	texts := buf[:0]
	for _, p := range r.parts {
		if p.image == nil {
			texts = append(texts, p.text)
		}
	}
	if len(texts) == 0 {
		w.str("")
	} else {
		w.joined(texts)
	}
	w.raw(`}`)
	if gemini3 && hasImage(r.parts) {
		w.raw(`,"parts":[`)
		n := 0
		for _, p := range r.parts {
			if p.image != nil {
				w.sep(n)
				n++
				w.gemImage(p.image)
			}
		}
		w.raw(`]`)
	}
	w.raw(`}}`)
}

func (w *jw) gemImage(img *pi.ImageContent) {
	w.raw(`{"inlineData":{"mimeType":`)
	w.str(img.MimeType)
	w.raw(`,"data":`)
	w.str(img.Data)
	w.raw(`}}`)
}
