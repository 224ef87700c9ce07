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
// copies each frame while it is in cache (copyFrames says how); the body
// grows by doubling, and a StoredReducer's bodies arrive grown.
func (a *jsAccum) copyBodies(frames [][]byte, prefix []byte, lits *literalCache) int {
	if lits == nil {
		lits = new(literalCache)
	}
	switch len(prefix) {
	case 47: // a text block's, at index 0 to 9
		return copyRun[[47]byte](a, frames, prefix, lits)
	case 48:
		return copyRun[[48]byte](a, frames, prefix, lits)
	case 51: // a thinking block's or a tool call's
		return copyRun[[51]byte](a, frames, prefix, lits)
	case 52:
		return copyRun[[52]byte](a, frames, prefix, lits)
	}
	if p := len(prefix); p < 40 || p > 56 {
		return a.copyBodiesAny(frames, prefix)
	}
	return copyRun[[0]byte](a, frames, prefix, lits)
}

// prefixLen is copyRun's prefix length as a type: an array of that many
// bytes, or [0]byte for len(prefix). Each length is compiled apart (array
// shapes of other lengths are other shapes), with the length a constant:
// the offsets fold and most bounds checks go (measured ≈ 10% a frame).
type prefixLen interface {
	[0]byte | [47]byte | [48]byte | [51]byte | [52]byte
}

// copyRun is copyBodies for a prefix of 40 to 56 bytes, P's length: it
// grows the body when copyFrames runs out of room, and calls it again.
func copyRun[P prefixLen](a *jsAccum, frames [][]byte, prefix []byte, lits *literalCache) int {
	var z P
	p := len(prefix)
	if len(z) != 0 {
		p = len(z)
	}
	// The prefix as seven words, at 0, 8, 16, 24, 32, at5 and p-8 (at5 and
	// p-8 overlap the others as p requires): one compare each.
	at5 := min(40, p-8)
	var pw [7]uint64
	for i := range 5 {
		pw[i] = le64(prefix[8*i:])
	}
	pw[5], pw[6] = le64(prefix[at5:]), le64(prefix[p-8:])
	n := 0
	for {
		k, w, why := copyFrames[P](a.buf[:cap(a.buf)], len(a.buf), frames[n:], p, &pw, lits)
		a.buf, n = a.buf[:w], n+k
		switch why {
		case needRoom:
			a.buf = growFor(a.buf, len(frames[n])+8)
		case needCheck:
			k := a.checkRun(frames[n:], prefix, lits)
			if k == 0 {
				return n
			}
			n += k
		default:
			return n
		}
	}
}

// stop is why copyFrames stopped: at the end of the run, or for its caller
// to grow the body or to check the next frame's literal.
type stop int

const (
	runEnd stop = iota
	needRoom
	needCheck
)

// copyFrames is copyRun's loop, writing at out[w:]: it returns how many
// frames it took, the body's length and why it stopped: the end of the
// run, no room for the next frame's literal and 8 bytes of slack, or a
// literal that is neither plain nor cached, which copyRun checks byte by
// byte. With both out of the loop it calls nothing, and keeps its values
// in registers (measured: ≈ 4% a frame each). The prefix words are read
// from memory for the same reason.
//
// Most literals are a token or two: those up to 24 bytes are moved as one
// to three 8-byte words, stored whole into the slack past the text, and
// checked by a word test when they are plain ASCII (by the literalCache,
// or byte by byte, otherwise). One up to 8 bytes is the word that ends it,
// shifted down (its frame's earlier bytes shifted out); one up to 16 is
// the two words that start and end it, overlapping; one up to 24 is those
// and the word between.
func copyFrames[P prefixLen](out []byte, w int, frames [][]byte, p int, pw *[7]uint64, lits *literalCache) (took, bodyLen int, why stop) {
	var z P
	if len(z) != 0 {
		p = len(z)
	}
	at5, at6 := min(40, p-8), p-8
	for n, b := range frames {
		end := len(b) - 2
		if end < p {
			return n, w, runEnd
		}
		_ = b[39]
		x := (le64(b[0:]) ^ pw[0]) | (le64(b[8:]) ^ pw[1]) | (le64(b[16:]) ^ pw[2]) | (le64(b[24:]) ^ pw[3]) | (le64(b[32:]) ^ pw[4]) | (le64(b[at5:]) ^ pw[5])
		if at6 != at5 { // a constant but for [0]byte: a text block's 47 and 48 bytes need six words
			x |= le64(b[at6:]) ^ pw[6]
		}
		if x != 0 || binary.LittleEndian.Uint16(b[end:]) != '"'|'}'<<8 {
			return n, w, runEnd
		}
		l := end - p
		if len(out)-w < l+8 {
			return n, w, needRoom
		}
		// The words are stored before they are judged (past the body, in
		// out's slack, they are nothing until w moves over them): a plain
		// literal moves on at once, one the cache holds after the lookup.
		var first, mid uint64
		last := le64(b[end-8:])
		switch {
		case l <= 8:
			if l == 0 {
				continue
			}
			// The literal's l bytes shifted down, and plain bytes above
			// them for the word test: the shift is below 64, which the
			// mask tells the compiler (a plain shift would also handle 64).
			sh := uint(64-8*l) & 63
			last >>= sh
			binary.LittleEndian.PutUint64(out[w:], last)
			if pi.PlainJSONWord(last | plain&^(^uint64(0)>>sh)) {
				w += l
				continue
			}
		case l <= 16:
			first = le64(b[p:])
			binary.LittleEndian.PutUint64(out[w:], first)
			binary.LittleEndian.PutUint64(out[w+l-8:], last)
			if pi.PlainJSONWord(first) && pi.PlainJSONWord(last) {
				w += l
				continue
			}
		case l <= 24:
			first, mid = le64(b[p:]), le64(b[p+8:])
			binary.LittleEndian.PutUint64(out[w:], first)
			binary.LittleEndian.PutUint64(out[w+8:], mid)
			binary.LittleEndian.PutUint64(out[w+l-8:], last)
			if pi.PlainJSONWord(first) && pi.PlainJSONWord(mid) && pi.PlainJSONWord(last) {
				w += l
				continue
			}
		default:
			return n, w, needCheck
		}
		// The cache's slot, written out (see cachedLiteral.is).
		if e := &lits[slotOf(first, mid, last, l)]; !e[0].is(first, mid, last, l) && !e[1].is(first, mid, last, l) {
			return n, w, needCheck
		}
		w += l
	}
	return len(frames), w, runEnd
}

// literalCache remembers literals of 1 to 24 bytes that canonicalBody
// found canonical, by the words that hold all their bytes: the word that
// ends one up to 8 bytes (shifted down, first and mid 0), the two that
// start and end one up to 16 (overlapping, mid 0), or those and the word
// between for one up to 24. Equal words and length are equal bytes, so a
// hit is canonicalBody's answer, not a guess. Delta text repeats its
// tokens (a few spellings of a few characters and escapes make most of
// the literals that are not plain ASCII), and a hit costs a multiply and
// a compare where canonicalBody reads byte by byte. A StoredReducer keeps
// its cache from list to list.
//
// A slot holds two literals, the last one filled first: two that share a
// slot (two of the bench stream's seven) would otherwise evict each other
// on every frame.
type literalCache [64][2]cachedLiteral

type cachedLiteral struct {
	first, mid, last uint64
	l                int // 0: empty
}

// is reports whether e holds the literal of l bytes those words hold.
// copyFrames checks a slot's two by it, written out (literalCache as a
// method is not inlined); check is copyRun's on a miss.
func (e *cachedLiteral) is(first, mid, last uint64, l int) bool {
	return e.l == l && e.first == first && e.mid == mid && e.last == last
}

func slotOf(first, mid, last uint64, l int) uint64 {
	return ((first^mid^last)*0x9E3779B97F4A7C15 + uint64(l)) >> 58
}

// checkRun copies the literals of the run's frames from frames[0], which
// copyFrames found neither plain nor cached, while they are not plain:
// each is checked byte by byte and cached (check), and the first plain one
// goes back to copyFrames (a cached one stays: looking it up here costs
// more than checking it, for the streams that come here). A stream of many distinct
// literals that are not plain ASCII (CJK text: a few thousand characters,
// one or two a delta) so stays in one loop instead of leaving copyFrames
// and entering it again for every frame. It returns how many it took.
func (a *jsAccum) checkRun(frames [][]byte, prefix []byte, lits *literalCache) int {
	p := len(prefix)
	for n, b := range frames {
		end := len(b) - 2
		if end < p || string(b[:p]) != string(prefix) || b[end] != '"' || b[end+1] != '}' {
			return n
		}
		lit := b[p:end]
		if n > 0 && nextSpecial(lit, 0) == len(lit) {
			return n // plain ASCII: copyFrames' word test takes it
		}
		if !lits.check(b, p) {
			return n
		}
		a.buf = append(growFor(a.buf, len(b)), lit...)
	}
	return len(frames)
}

// check is canonicalBody for the literal of frame b after its p-byte
// prefix (up to its closing `"}`), which the loop found neither plain nor
// cached; it caches the literal when it is canonical and 1 to 24 bytes
// long (the slot's older literal dropped), by the words copyFrames reads
// it as: the word that ends it shifted down (up to 8: the frame's earlier
// bytes shifted out), the words that start and end it (up to 16), and the
// word between (up to 24).
func (c *literalCache) check(b []byte, p int) bool {
	end := len(b) - 2
	lit := b[p:end]
	if !canonicalBody(lit) {
		return false
	}
	var first, mid, last uint64
	switch l := len(lit); {
	case l == 0 || l > 24:
		return true
	case l <= 8:
		last = le64(b[end-8:]) >> (uint(64-8*l) & 63)
	case l <= 16:
		first, last = le64(lit), le64(lit[l-8:])
	default:
		first, mid, last = le64(lit), le64(lit[8:]), le64(lit[l-8:])
	}
	e := &c[slotOf(first, mid, last, len(lit))]
	e[1], e[0] = e[0], cachedLiteral{first, mid, last, len(lit)}
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
