package frames

import (
	"math"
	"math/bits"
	"strconv"

	"github.com/frameproof/frameproof/impl/pi"
)

// AppendReducedJSON's start frame, read without building its partial.
//
// pi-ai's reducer only ever reads and writes the message's content: every
// other member of the partial is written back by JSON.stringify as JSON.parse
// read it. When the partial's JSON is JSON.stringify's own writing of what
// JSON.parse makes of it (canonicalJSON) and its content is `[]`, the
// message's JSON is the partial's bytes before content's value, the content
// array's JSON, and the partial's bytes after it. The encoder writes a fresh
// message's start frame so; anything else takes the general path.

// The start frame's shape, exactly as AppendFrame writes it for a partial
// whose content is empty: {"type":"start","partial":{...,"content":[],...}}.
const (
	startOpen     = `{"type":"start","partial":`
	contentMember = `"content":`
)

// maxRawDepth bounds the nesting canonicalJSON reads (pi.ParseJSON's own
// bound is far above it); deeper partials take the general path.
const maxRawDepth = 32

// maxRawKeys bounds the members of an object canonicalJSON checks for
// repeated keys, one against another.
const maxRawKeys = 24

// rawStart matches a start frame in the encoder's shape whose partial is
// canonical and holds `"content":[]` at its top level, and returns the
// partial's bytes before content's value (head) and after it (tail).
func rawStart(frame []byte) (head, tail []byte, ok bool) {
	if len(frame) < len(startOpen)+3 || string(frame[:len(startOpen)]) != startOpen || frame[len(frame)-1] != '}' {
		return nil, nil, false
	}
	partial := frame[len(startOpen) : len(frame)-1]
	if partial[0] != '{' {
		return nil, nil, false
	}
	at := -1 // where content's value starts
	n, ok := canonicalObject(partial, 0, &at)
	if !ok || n != len(partial) || at < 0 || len(partial)-at < 2 || partial[at] != '[' || partial[at+1] != ']' {
		return nil, nil, false
	}
	return partial[:at], partial[at+2:], true
}

// startRaw is Apply of a start frame rawStart matched: the message holds
// only its (empty) content, and the rest of the partial is written from
// head and tail.
func (r *ValueReducer) startRaw(head, tail []byte) error {
	if err := r.startCheck(); err != nil {
		return err
	}
	if r.rawMsg == nil {
		r.rawMsg = pi.NewObject()
		r.rawMsg.Set("content", pi.ArrayValue(nil))
	}
	// A StoredReducer's last message object, its content's array reused:
	// it only ever holds content (the reducer sets nothing else on the
	// message), and nothing of the last message is reachable.
	content, _ := r.rawMsg.Get("content")
	r.rawMsg.Set("content", pi.ArrayValue(content.Array()[:0]))
	r.message, r.rawHead, r.rawTail = pi.ObjectValue(r.rawMsg), head, tail
	return nil
}

// canonicalJSON reports the length of the JSON value b starts with when it
// is exactly what JSON.stringify(JSON.parse(value)) writes: no whitespace,
// strings as canonicalBody, numbers as pi.AppendNumber writes them, objects
// without repeated keys, keys that JS orders first (array indexes) or that
// JSON.parse treats apart (__proto__). Anything else is false.
func canonicalJSON(b []byte, depth int) (int, bool) {
	if len(b) == 0 {
		return 0, false
	}
	switch c := b[0]; {
	case c == '"':
		return canonicalString(b)
	case c == '{':
		return canonicalObject(b, depth, nil)
	case c == '[':
		return canonicalArray(b, depth)
	case c == 't':
		return literalAt(b, "true")
	case c == 'f':
		return literalAt(b, "false")
	case c == 'n':
		return literalAt(b, "null")
	case c == '-' || (c >= '0' && c <= '9'):
		return canonicalNumber(b)
	}
	return 0, false
}

func literalAt(b []byte, word string) (int, bool) {
	if len(b) >= len(word) && string(b[:len(word)]) == word {
		return len(word), true
	}
	return 0, false
}

// canonicalString is the length of the string literal b starts with, when
// its body is canonicalBody: one pass that finds the closing quote and
// checks the body on the way, skipping plain ASCII eight bytes at a time
// (nextSpecial).
func canonicalString(b []byte) (int, bool) {
	// Most of a partial's keys and strings are plain and close within two
	// words: found here without the loop's calls.
	if len(b) >= 17 {
		at, m := 1, plainMask(le64(b[1:]))
		if m == 0 {
			at, m = 9, plainMask(le64(b[9:]))
		}
		if j := at + bits.TrailingZeros64(m)>>3; m != 0 && b[j] == '"' {
			return j + 1, true
		}
	}
	for i := nextSpecial(b, 1); i < len(b); i = nextSpecial(b, i) {
		if b[i] == '"' {
			return i + 1, true
		}
		if i = canonicalSpecial(b, i); i < 0 {
			return 0, false
		}
	}
	return 0, false
}

// nextSpecial is the index of the first byte of b at or after i that is
// not pi.PlainJSONByte, or len(b). A word's first such byte is found by
// its mask's lowest bit (a partial's keys and strings are mostly shorter
// than a word: one load finds the closing quote).
func nextSpecial(b []byte, i int) int {
	for ; i+8 <= len(b); i += 8 {
		if m := plainMask(le64(b[i:])); m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
	}
	for i < len(b) && pi.PlainJSONByte(b[i]) {
		i++
	}
	return i
}

// plainMask is pi.PlainJSONWord's test as a mask: the high bit of the
// bytes of x that are not plain, the lowest set bit exact (a borrow only
// carries above a byte that is not plain, and may mark bytes above it).
func plainMask(x uint64) uint64 {
	q, bs := x^'"'*ones, x^'\\'*ones
	return (x | (x-0x20*ones)&^x | (q-ones)&^q | (bs-ones)&^bs) & (0x80 * ones)
}

// canonicalObject is canonicalJSON for an object; with contentAt, it is
// the partial's top level, and *contentAt is set to where the value of its
// content member starts.
func canonicalObject(b []byte, depth int, contentAt *int) (int, bool) {
	if depth >= maxRawDepth {
		return 0, false
	}
	if len(b) >= 2 && b[1] == '}' {
		return 2, true
	}
	var keys [maxRawKeys]struct{ at, n int32 } // where the keys so far are in b
	nkeys := 0
	if len(b) > math.MaxInt32 {
		return 0, false
	}
	for i := 1; ; {
		if i >= len(b) || b[i] != '"' {
			return 0, false
		}
		kn, ok := canonicalString(b[i:])
		if !ok || nkeys == maxRawKeys {
			return 0, false
		}
		key := b[i+1 : i+kn-1]
		if len(key) > 0 && key[0] >= '0' && key[0] <= '9' || string(key) == "__proto__" {
			return 0, false // an array index (ordered first) or JSON.parse's own case
		}
		for _, k := range keys[:nkeys] {
			if int(k.n) == len(key) && string(b[k.at:k.at+k.n]) == string(key) {
				return 0, false
			}
		}
		keys[nkeys].at, keys[nkeys].n, nkeys = int32(i+1), int32(len(key)), nkeys+1
		i += kn
		if i >= len(b) || b[i] != ':' {
			return 0, false
		}
		i++
		if contentAt != nil && string(key) == "content" {
			*contentAt = i
		}
		next, end, ok := canonicalMember(b, i, depth, '}')
		if !ok || end {
			return next, ok
		}
		i = next
	}
}

func canonicalArray(b []byte, depth int) (int, bool) {
	if depth >= maxRawDepth {
		return 0, false
	}
	if len(b) >= 2 && b[1] == ']' {
		return 2, true
	}
	for i := 1; ; {
		next, end, ok := canonicalMember(b, i, depth, ']')
		if !ok || end {
			return next, ok
		}
		i = next
	}
}

// canonicalMember reads the value at b[i] and the ',' or closer after it:
// where the next member starts, or (end) the length of the whole container.
// A truncated container is not canonical: every index is checked, since
// the bytes may be any stored line.
func canonicalMember(b []byte, i, depth int, closer byte) (next int, end, ok bool) {
	if i >= len(b) {
		return 0, false, false
	}
	// One-digit integers (most of a partial's numbers) are read here, and
	// strings without canonicalJSON's dispatch.
	if c := b[i]; c >= '0' && c <= '9' && i+1 < len(b) && (b[i+1] == ',' || b[i+1] == closer) {
		i++
	} else if c == '"' {
		vn, ok := canonicalString(b[i:])
		if !ok {
			return 0, false, false
		}
		i += vn
	} else {
		vn, ok := canonicalJSON(b[i:], depth+1)
		if !ok {
			return 0, false, false
		}
		i += vn
	}
	if i >= len(b) {
		return 0, false, false
	}
	switch b[i] {
	case ',':
		return i + 1, false, true
	case closer:
		return i + 1, true, true
	}
	return 0, false, false
}

// canonicalNumber is the length of the JSON number b starts with, when
// pi.AppendNumber writes its value back as the same bytes (no -0, no
// exponent or trailing zero JS would not write, no digits past what
// round-trips).
func canonicalNumber(b []byte) (int, bool) {
	i := 0
	if b[0] == '-' {
		i++
	}
	start := i
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	digits := i - start
	if digits == 0 {
		return 0, false
	}
	if i == len(b) || (b[i] != '.' && b[i] != 'e' && b[i] != 'E') {
		// An integer: canonical when it has no leading zero, is not -0,
		// and is small enough to be exact (15 digits are).
		switch {
		case b[start] == '0':
			return i, digits == 1 && start == 0
		case digits <= 15:
			return i, true
		}
	} else if n, ok := plainDecimal(b, start, i); ok {
		return n, true
	} else {
		if b[i] == '.' {
			i++
			for i < len(b) && b[i] >= '0' && b[i] <= '9' {
				i++
			}
		}
		if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
			i++
			if i < len(b) && (b[i] == '+' || b[i] == '-') {
				i++
			}
			for i < len(b) && b[i] >= '0' && b[i] <= '9' {
				i++
			}
		}
	}
	// The rest: as the general path reads and writes it.
	f, err := strconv.ParseFloat(string(b[:i]), 64)
	if err != nil {
		return 0, false
	}
	var buf [32]byte
	return i, string(pi.AppendNumber(buf[:0], f)) == string(b[:i])
}

// plainDecimal is the length of the number b starts with when its digits
// from start are an integer part (point at b[point]), a fraction without
// trailing zero and no exponent, of at most 15 significant digits, below
// 1 with at most five zeros after the point: AppendNumber writes it back
// as it is (15 digits round-trip, so no shorter digits name the same
// double, and JS writes 1e-6 and above without exponent). Otherwise false,
// for ParseFloat to decide: it is most of the cost of a partial's costs.
func plainDecimal(b []byte, start, point int) (int, bool) {
	if b[point] != '.' || b[start] == '0' && point-start != 1 {
		return 0, false
	}
	f, j := point+1, point+1
	for j < len(b) && b[j] >= '0' && b[j] <= '9' {
		j++
	}
	if j == f || b[j-1] == '0' || j < len(b) && (b[j] == 'e' || b[j] == 'E') {
		return 0, false
	}
	sig := point - start + j - f
	if b[start] == '0' {
		z := f
		for b[z] == '0' {
			z++
		}
		if z-f > 5 {
			return 0, false
		}
		sig = j - z
	}
	return j, sig <= 15
}
