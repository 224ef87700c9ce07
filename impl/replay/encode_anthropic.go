package replay

import "github.com/frameproof/frameproof/impl/pi"

type anthKind uint8

const (
	anthThinking anthKind = iota
	anthRedacted
	anthText
	anthCall
	anthResult
	anthPart
)

// anthBlock is one content block to write; it points into the plan.
type anthBlock struct {
	kind anthKind
	blk  *asstBlock // anthThinking, anthRedacted, anthText, anthCall
	res  *result    // anthResult
	part *part      // anthPart
}

func (b anthBlock) thinking() bool { return b.kind == anthThinking || b.kind == anthRedacted }

// anthMsg is one message: blocks[lo:hi] of the encoder's flat block list.
// Only the last message ever grows, so every message stays contiguous.
type anthMsg struct {
	role   string
	lo, hi int
}

// anthLayout collects messages and their blocks before anything is written,
// because a later turn can still merge into (and drop thinking from) the
// last message.
type anthLayout struct {
	msgs   []anthMsg
	blocks []anthBlock
}

// push makes blocks[from:] one message of role, or merges them into the
// last message when it has the same role (the API combines consecutive
// same-role turns; thinking after other blocks is not a leading run).
func (l *anthLayout) push(role string, from int) {
	if from == len(l.blocks) {
		return
	}
	if n := len(l.msgs); n > 0 && l.msgs[n-1].role == role {
		kept := l.blocks[:from]
		for _, b := range l.blocks[from:] {
			if !b.thinking() {
				kept = append(kept, b)
			}
		}
		l.blocks = kept
		l.msgs[n-1].hi = len(kept)
		return
	}
	l.msgs = append(l.msgs, anthMsg{role: role, lo: from, hi: len(l.blocks)})
}

// encodeAnthropic lays turns out as Anthropic Messages. The API combines
// consecutive same-role turns; doing it here keeps the body explicit and
// lets the rules that apply to the combined turn be enforced: tool_result
// blocks first, thinking only as the leading run, and no thinking in a final
// assistant message (thinking is not enabled by this request).
func encodeAnthropic(w *jw, turns []turn, t Target, o Options) {
	l := anthLayout{msgs: make([]anthMsg, 0, len(turns)), blocks: make([]anthBlock, 0, 2*len(turns))}
	for i := range turns {
		tr := &turns[i]
		from := len(l.blocks)
		if !tr.assistant {
			for j := range tr.parts {
				l.blocks = append(l.blocks, anthBlock{kind: anthPart, part: &tr.parts[j]})
			}
			l.push("user", from)
			continue
		}
		leading := true
		for j := range tr.blocks {
			b := &tr.blocks[j]
			switch b.kind {
			case blockReasoning:
				if !leading {
					continue
				}
				kind := anthThinking
				if th := b.thinking(); th.Redacted != nil && *th.Redacted {
					kind = anthRedacted
				}
				l.blocks = append(l.blocks, anthBlock{kind: kind, blk: b})
			case blockText:
				leading = false
				l.blocks = append(l.blocks, anthBlock{kind: anthText, blk: b})
			case blockCall:
				leading = false
				l.blocks = append(l.blocks, anthBlock{kind: anthCall, blk: b})
			}
		}
		l.push("assistant", from)
		from = len(l.blocks)
		for j := range tr.results {
			l.blocks = append(l.blocks, anthBlock{kind: anthResult, res: &tr.results[j]})
		}
		l.push("user", from)
	}
	if n := len(l.msgs); n > 0 && l.msgs[n-1].role == "assistant" {
		last := &l.msgs[n-1]
		kept := l.blocks[:last.lo]
		for _, b := range l.blocks[last.lo:last.hi] {
			if !b.thinking() {
				kept = append(kept, b)
			}
		}
		last.hi = len(kept)
	}

	maxTokens := o.MaxTokens
	if maxTokens == 0 {
		maxTokens = 4096
	}
	w.raw(`{"model":`)
	w.str(t.Model)
	w.raw(`,"max_tokens":`)
	w.b = pi.AppendNumber(w.b, float64(maxTokens))
	if o.Principal != nil {
		w.raw(`,"system":`)
		w.str(o.Principal.Render())
	}
	w.raw(`,"messages":[`)
	for i, m := range l.msgs {
		w.sep(i)
		w.raw(`{"role":`)
		w.str(m.role)
		w.raw(`,"content":[`)
		for j, b := range l.blocks[m.lo:m.hi] {
			w.sep(j)
			w.anthBlock(b)
		}
		w.raw(`]}`)
	}
	w.raw(`]}`)
}

func (w *jw) anthBlock(b anthBlock) {
	switch b.kind {
	case anthThinking:
		th := b.blk.thinking()
		w.raw(`{"type":"thinking","thinking":`)
		w.str(th.Thinking)
		w.raw(`,"signature":`)
		w.str(*th.ThinkingSignature)
		w.raw(`}`)
	case anthRedacted:
		w.raw(`{"type":"redacted_thinking","data":`)
		w.str(*b.blk.thinking().ThinkingSignature)
		w.raw(`}`)
	case anthText:
		w.raw(`{"type":"text","text":`)
		w.str(b.blk.text())
		w.raw(`}`)
	case anthCall:
		call := b.blk.call()
		w.raw(`{"type":"tool_use","id":`)
		w.str(call.ID)
		w.raw(`,"name":`)
		w.str(call.Name)
		w.raw(`,"input":`)
		w.args(call.Arguments)
		w.raw(`}`)
	case anthResult:
		w.raw(`{"type":"tool_result","tool_use_id":`)
		w.str(b.res.callID)
		w.raw(`,"content":[`)
		for i := range b.res.parts {
			w.sep(i)
			w.anthPart(&b.res.parts[i])
		}
		w.raw(`]`)
		if b.res.isError {
			w.raw(`,"is_error":true`)
		}
		w.raw(`}`)
	case anthPart:
		w.anthPart(b.part)
	}
}

func (w *jw) anthPart(p *part) {
	if p.image != nil {
		w.raw(`{"type":"image","source":{"type":"base64","media_type":`)
		w.str(p.image.MimeType)
		w.raw(`,"data":`)
		w.str(p.image.Data)
		w.raw(`}}`)
		return
	}
	w.raw(`{"type":"text","text":`)
	w.str(p.text)
	w.raw(`}`)
}
