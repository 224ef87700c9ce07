package replay

import "github.com/frameproof/frameproof/impl/pi"

type gemKind uint8

const (
	gemThought  gemKind = iota // a signed reasoning block
	gemText                    // {"text":...}
	gemCall                    // a functionCall, with or without a signature
	gemResponse                // a functionResponse for one result
	gemImage                   // inlineData
)

// gemPart is one part to write; it points into the plan.
type gemPart struct {
	kind gemKind
	text string // gemText
	blk  *asstBlock
	sig  string // gemCall: the thoughtSignature to send, "" for none
	res  *result
	img  *pi.ImageContent
}

// gemContent is one content: parts[lo:hi] of the encoder's flat part list.
// Only the last content ever grows, so every content stays contiguous.
type gemContent struct {
	role   string
	calls  bool
	lo, hi int
}

// encodeGemini lays turns out as Gemini contents. Consecutive model turns
// are combined (a function call turn must follow a user turn or a function
// response turn); all responses of one round form one user turn, in call
// order, so their count equals the call count. Gemini 3 nests result images
// in functionResponse.parts and requires a thought signature on function
// calls; older models get result images in a following user turn.
func encodeGemini(w *jw, turns []turn, t Target, o Options) {
	gemini3 := t.gemini3()
	cs := make([]gemContent, 0, len(turns)+1)
	ps := make([]gemPart, 0, 2*len(turns))
	add := func(role string, calls bool, from int) {
		cs = append(cs, gemContent{role: role, calls: calls, lo: from, hi: len(ps)})
	}
	for i := range turns {
		tr := &turns[i]
		from := len(ps)
		if !tr.assistant {
			for j := range tr.parts {
				ps = append(ps, userGemPart(&tr.parts[j]))
			}
			add("user", false, from)
			continue
		}
		calls := false
		for j := range tr.blocks {
			b := &tr.blocks[j]
			switch b.kind {
			case blockReasoning:
				ps = append(ps, gemPart{kind: gemThought, blk: b})
			case blockText:
				ps = append(ps, gemPart{kind: gemText, text: b.text()})
			case blockCall:
				calls = true
				p := gemPart{kind: gemCall, blk: b}
				switch {
				case b.keepSig:
					p.sig = *b.call().ThoughtSignature
				case gemini3:
					p.sig = GeminiSkipSignature
				}
				ps = append(ps, p)
			}
		}
		if n := len(cs); n > 0 && cs[n-1].role == "model" {
			cs[n-1].hi = len(ps)
			cs[n-1].calls = cs[n-1].calls || calls
		} else {
			add("model", calls, from)
		}
		if len(tr.results) == 0 {
			continue
		}
		from = len(ps)
		images := false
		for j := range tr.results {
			ps = append(ps, gemPart{kind: gemResponse, res: &tr.results[j]})
			images = images || hasImage(tr.results[j].parts)
		}
		add("user", false, from)
		if images && !gemini3 {
			from = len(ps)
			ps = append(ps, gemPart{kind: gemText, text: GeminiToolImagesLeadIn})
			for j := range tr.results {
				for k := range tr.results[j].parts {
					if p := &tr.results[j].parts[k]; p.image != nil {
						ps = append(ps, gemPart{kind: gemImage, img: p.image})
					}
				}
			}
			add("user", false, from)
		}
	}
	w.raw(`{`)
	if o.Principal != nil {
		w.raw(`"systemInstruction":{"parts":[{"text":`)
		w.str(o.Principal.Render())
		w.raw(`}]},`)
	}
	w.raw(`"contents":[`)
	if len(cs) > 0 && cs[0].role == "model" && cs[0].calls {
		w.raw(`{"role":"user","parts":[{"text":`)
		w.str(GeminiLeadIn)
		w.raw(`}]},`)
	}
	for i, c := range cs {
		w.sep(i)
		w.raw(`{"role":`)
		w.str(c.role)
		w.raw(`,"parts":[`)
		for j := range ps[c.lo:c.hi] {
			w.sep(j)
			w.gemPart(&ps[c.lo+j], gemini3)
		}
		w.raw(`]}`)
	}
	w.raw(`]}`)
}

func userGemPart(p *part) gemPart {
	if p.image != nil {
		return gemPart{kind: gemImage, img: p.image}
	}
	return gemPart{kind: gemText, text: p.text}
}

func hasImage(parts []part) bool {
	for _, p := range parts {
		if p.image != nil {
			return true
		}
	}
	return false
}

func (w *jw) gemPart(p *gemPart, gemini3 bool) {
	switch p.kind {
	case gemThought:
		th := p.blk.thinking()
		w.raw(`{"thought":true,"text":`)
		w.str(th.Thinking)
		w.raw(`,"thoughtSignature":`)
		w.str(*th.ThinkingSignature)
		w.raw(`}`)
	case gemText:
		w.raw(`{"text":`)
		w.str(p.text)
		w.raw(`}`)
	case gemCall:
		w.raw(`{"functionCall":{"name":`)
		call := p.blk.call()
		w.str(call.Name)
		w.raw(`,"args":`)
		w.args(call.Arguments)
		w.raw(`}`)
		if p.sig != "" {
			w.raw(`,"thoughtSignature":`)
			w.str(p.sig)
		}
		w.raw(`}`)
	case gemResponse:
		w.gemResponse(p.res, gemini3)
	case gemImage:
		w.gemImage(p.img)
	}
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
