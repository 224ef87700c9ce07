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

// copyBodies appends the literals of frames, each between a prefix of
// length p and a closing `"}` (size bytes in all), to a body, up to the
// first that is not JSON.stringify's own, and returns how many it took.
//
// Most literals are a token or two of plain ASCII: those up to 16 bytes
// are checked and moved as one or two 8-byte words, which the slack of 8
// bytes past size lets the loop store whole. One up to 8 bytes is the word
// that ends it, shifted down (its frame's earlier bytes shifted out); one
// up to 16 is the two words that start and end it, overlapping.
func (a *jsAccum) copyBodies(frames [][]byte, p, size int) int {
	buf := growFor(a.buf, size+8)
	out, w := buf[:cap(buf)], len(buf)
	n := 0
	for ; n < len(frames); n++ {
		b := frames[n]
		end := len(b) - 2
		l := end - p
		switch last := binary.LittleEndian.Uint64(b[end-8:]); {
		case l <= 8:
			if word := last >> (64 - 8*l); pi.PlainJSONWord(word | plain<<(8*l)) { // a shift by 64 gives 0
				binary.LittleEndian.PutUint64(out[w:], word)
				w += l
				continue
			}
		case l <= 16:
			if first := binary.LittleEndian.Uint64(b[p:]); pi.PlainJSONWord(first) && pi.PlainJSONWord(last) {
				binary.LittleEndian.PutUint64(out[w:], first)
				binary.LittleEndian.PutUint64(out[w+l-8:], last)
				w += l
				continue
			}
		}
		// Longer, or not plain ASCII (escapes, other characters).
		if !canonicalBody(b[p:end]) {
			break
		}
		w += copy(out[w:], b[p:end])
	}
	a.buf = out[:w]
	return n
}
