package frames

import (
	"encoding/binary"

	"github.com/frameproof/frameproof/impl/pi"
)

// The word-level loop behind ReduceJSON's runs of delta frames: a run's
// frames share one prefix (type, index, delta key), their literals are a
// few bytes (a token or two), and most are plain ASCII or JSON.stringify's
// own escapes, so matching, checking and copying one frame take a few
// 8-byte loads and stores and no call.

const (
	ones  = 0x0101010101010101
	plain = 'a' * ones // a word of plain bytes, to fill a short literal's word
)

// appendBodyIn appends b[start:end] to buf when it is a body
// canonicalBody accepts, and reports whether it was; start >= 8, and b
// has two more bytes after end. Literals up to 16 bytes are moved as one
// or two words: the word that ends at end, shifted down, for up to 8;
// the words that start and end the literal, overlapping, for up to 16.
func appendBodyIn(buf, b []byte, start, end int) ([]byte, bool) {
	l := end - start
	if l > 16 {
		if !canonicalIn(b, start, end) {
			return buf, false
		}
		return append(buf, b[start:end]...), true
	}
	n := len(buf)
	buf = growFor(buf, l+8)
	out := buf[n : n+l+8]
	last := binary.LittleEndian.Uint64(b[end-8:])
	if l <= 8 {
		word := last >> (64 - 8*l) // Go: a shift by 64 gives 0
		if !pi.PlainJSONWord(word|plain<<(8*l)) && !canonicalTail(b[start:end]) {
			return buf, false
		}
		binary.LittleEndian.PutUint64(out, word)
		return buf[:n+l], true
	}
	first := binary.LittleEndian.Uint64(b[start:])
	if !(pi.PlainJSONWord(first) && pi.PlainJSONWord(last)) && !canonicalTail(b[start:end]) {
		return buf, false
	}
	binary.LittleEndian.PutUint64(out, first)
	binary.LittleEndian.PutUint64(out[l-8:], last)
	return buf[:n+l], true
}
