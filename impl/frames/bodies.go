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
// Most literals are a token or two: those up to 16 bytes are moved as one
// or two 8-byte words, which the slack of 8 bytes past size lets the loop
// store whole, and checked by a word test when they are plain ASCII (byte
// by byte otherwise). One up to 8 bytes is the word that ends it, shifted
// down (its frame's earlier bytes shifted out); one up to 16 is the two
// words that start and end it, overlapping.
func (a *jsAccum) copyBodies(frames [][]byte, p, size int) int {
	buf := growFor(a.buf, size+8)
	out, w := buf[:cap(buf)], len(buf)
	n := 0
	for ; n < len(frames); n++ {
		b := frames[n]
		end := len(b) - 2
		l := end - p
		if l > 16 {
			if !canonicalBody(b[p:end]) {
				break
			}
			w += copy(out[w:], b[p:end])
			continue
		}
		last := binary.LittleEndian.Uint64(b[end-8:])
		if l <= 8 {
			word := last >> (64 - 8*l) // a shift by 64 gives 0
			if !pi.PlainJSONWord(word|plain<<(8*l)) && !canonicalBody(b[p:end]) {
				break
			}
			binary.LittleEndian.PutUint64(out[w:], word)
		} else {
			first := binary.LittleEndian.Uint64(b[p:])
			if !(pi.PlainJSONWord(first) && pi.PlainJSONWord(last)) && !canonicalBody(b[p:end]) {
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
