package frames

// AppendReducedJSON's list of one block: a start frame rawStart reads, a
// text or thinking start frame at index 0 whose text is JSON.stringify's
// own, and delta frames on that block that copyBodies takes, to the end.
// That is a message's frame log while its one block streams (the codec
// bench's stream), and its JSON is known without a reducer: the partial's
// bytes around `[{"type":"text","text":"` + the texts' bodies + `"}]`.
// The bodies are copied straight into dst, so the text is written once.

// A first block's start frame and its deltas' prefix, by kind. The block
// object applyBlockStart builds holds type, then the kind's member.
var singleShapes = [...]struct {
	open, content, delta string
}{
	{textStartOpen + "0" + textStartBlock, `[{"type":"text","text":"`, deltaOpen + "text_delta" + deltaIndex + "0" + deltaKey},
	{thinkingStartOpen + "0" + thinkingBlock, `[{"type":"thinking","thinking":"`, deltaOpen + "thinking_delta" + deltaIndex + "0" + deltaKey},
}

// appendSingle appends the message's JSON for frames in that shape, and
// reports whether they are; otherwise it returns dst as it was, and the
// general path reads them (a list it gave up on was read up to a frame
// that left the shape: the last frame is checked first, so that a log
// whose block ended is not copied twice).
func (s *StoredReducer) appendSingle(dst []byte, frames [][]byte) ([]byte, bool) {
	if len(frames) < 2 {
		return dst, false
	}
	shape, raw := firstBlockStart(frames[1])
	if shape < 0 {
		return dst, false
	}
	sh := &singleShapes[shape]
	if last := frames[len(frames)-1]; len(frames) > 2 && (len(last) < len(sh.delta)+2 || string(last[:len(sh.delta)]) != sh.delta) {
		return dst, false
	}
	head, tail, ok := rawStart(frames[0])
	if !ok {
		return dst, false
	}
	if s.r.lits == nil {
		s.r.lits = new(literalCache)
	}
	n := len(dst)
	acc := jsAccum{buf: append(append(append(dst, head...), sh.content...), raw...)}
	if acc.copyBodies(frames[2:], []byte(sh.delta), s.r.lits) != len(frames)-2 {
		return dst[:n], false
	}
	return append(append(acc.buf, `"}]`...), tail...), true
}

// firstBlockStart matches a text or thinking start frame at index 0 in
// the encoder's shape whose text is canonicalBody, and returns its shape
// in singleShapes (-1 for any other frame) and the text's body.
func firstBlockStart(frame []byte) (int, []byte) {
	for i := range singleShapes {
		open := singleShapes[i].open
		if len(frame) < len(open)+len(blockStartClose) || string(frame[:len(open)]) != open ||
			string(frame[len(frame)-len(blockStartClose):]) != blockStartClose {
			continue
		}
		raw := frame[len(open) : len(frame)-len(blockStartClose)]
		if !canonicalBody(raw) {
			return -1, nil
		}
		return i, raw
	}
	return -1, nil
}
