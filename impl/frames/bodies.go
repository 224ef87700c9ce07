package frames

import (
	"encoding/binary"

	"github.com/frameproof/frameproof/impl/pi"
)

// The loop behind AppendReducedJSON's runs of delta frames, which copies
// their literals onto the block's JSON body (jsAccum).

const (
	ones  = 0x0101010101010101
	plain = 'a' * ones // a word of plain bytes, to fill a short literal's word
)

// copyBodies appends to a body the literals of the frames that open frames
// while they are delta frames that start with prefix and whose literal is
// JSON.stringify's own, and returns how many it took. One pass matches and
// copies each frame while it is in cache; the body grows by doubling, and
// a StoredReducer's bodies arrive grown.
//
// Most literals are a token or two: those up to 16 bytes are moved as one
// or two 8-byte words, stored whole into 8 bytes of slack past the text,
// and checked by a word test when they are plain ASCII (byte by byte
// otherwise). One up to 8 bytes is the word that ends it, shifted down
// (its frame's earlier bytes shifted out); one up to 16 is the two words
// that start and end it, overlapping.
func (a *jsAccum) copyBodies(frames [][]byte, prefix []byte, lits *literalCache) int {
	if lits == nil {
		lits = new(literalCache)
	}
	p := len(prefix)
	if p < 40 || p > 56 {
		return a.copyBodiesAny(frames, prefix)
	}
	// The prefix as seven words, at 0, 8, 16, 24, 32, mid and p-8 (mid and
	// p-8 overlap the others as p requires): one compare each.
	mid, tail := min(40, p-8), p-8
	w0, w1, w2, w3 := le64(prefix[0:]), le64(prefix[8:]), le64(prefix[16:]), le64(prefix[24:])
	w4, w5, w6 := le64(prefix[32:]), le64(prefix[mid:]), le64(prefix[tail:])
	out, w := a.buf[:cap(a.buf)], len(a.buf)
	n := 0
	for ; n < len(frames); n++ {
		b := frames[n]
		end := len(b) - 2
		if end < p {
			break
		}
		_ = b[39]
		if (le64(b[0:])^w0)|(le64(b[8:])^w1)|(le64(b[16:])^w2)|(le64(b[24:])^w3)|(le64(b[32:])^w4)|(le64(b[mid:])^w5)|(le64(b[tail:])^w6) != 0 ||
			binary.LittleEndian.Uint16(b[end:]) != '"'|'}'<<8 {
			break
		}
		l := end - p
		if w+l+8 > len(out) {
			out = growFor(out[:w], l+8)
			out = out[:cap(out)]
		}
		if l > 16 {
			if !canonicalBody(b[p:end]) {
				break
			}
			w += copy(out[w:], b[p:end])
			continue
		}
		last := le64(b[end-8:])
		if l <= 8 {
			word := last >> (64 - 8*l) // a shift by 64 gives 0
			if !pi.PlainJSONWord(word|plain<<(8*l)) && !lits.canonical(0, word, l, b[p:end]) {
				break
			}
			binary.LittleEndian.PutUint64(out[w:], word)
		} else {
			first := le64(b[p:])
			if !(pi.PlainJSONWord(first) && pi.PlainJSONWord(last)) && !lits.canonical(first, last, l, b[p:end]) {
				break
			}
			binary.LittleEndian.PutUint64(out[w:], first)
			binary.LittleEndian.PutUint64(out[w+l-8:], last)
		}
		w += l
	}
	a.buf = out[:w]
	return n
}

// literalCache remembers literals of 1 to 16 bytes that canonicalBody
// found canonical, by the words that hold all their bytes: the word that
// ends one up to 8 bytes (shifted down, first 0), or the two that start
// and end one up to 16 (overlapping). Equal words and length are equal
// bytes, so a hit is canonicalBody's answer, not a guess. Delta text
// repeats its tokens (a few spellings of a few characters and escapes
// make most of the literals that are not plain ASCII), and a hit costs a
// multiply and a compare where canonicalBody reads byte by byte. A
// StoredReducer keeps its cache from list to list.
type literalCache [64]struct {
	first, last uint64
	l           int // 0: empty
}

// canonical is canonicalBody(lit) for the literal of l bytes those words
// hold.
func (c *literalCache) canonical(first, last uint64, l int, lit []byte) bool {
	e := &c[((first^last)*0x9E3779B97F4A7C15+uint64(l))>>58]
	if e.l == l && e.first == first && e.last == last {
		return true
	}
	if !canonicalBody(lit) {
		return false
	}
	e.first, e.last, e.l = first, last, l
	return true
}

func le64(b []byte) uint64 { return binary.LittleEndian.Uint64(b) }

// copyBodiesAny is copyBodies for a prefix of any length (a content index
// of many digits), matched by a plain compare.
func (a *jsAccum) copyBodiesAny(frames [][]byte, prefix []byte) int {
	p := len(prefix)
	out, w := a.buf[:cap(a.buf)], len(a.buf)
	n := 0
	for ; n < len(frames); n++ {
		b := frames[n]
		end := len(b) - 2
		if end < p || string(b[:p]) != string(prefix) || b[end] != '"' || b[end+1] != '}' {
			break
		}
		l := end - p
		if w+l+8 > len(out) {
			out = growFor(out[:w], l+8)
			out = out[:cap(out)]
		}
		if !canonicalBody(b[p:end]) {
			break
		}
		w += copy(out[w:], b[p:end])
	}
	a.buf = out[:w]
	return n
}
