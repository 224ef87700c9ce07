package pi

import (
	"errors"
	"fmt"
	"strconv"
	"sync"
	"unicode/utf8"
)

var errNotSerializable = errors.New("pi: value is undefined and has no JSON form")

// SyntaxError is a JSON.parse failure at a byte offset of the input.
type SyntaxError struct {
	Offset int
	Msg    string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("pi: invalid JSON at byte %d: %s", e.Offset, e.Msg)
}

// ParseJSON is JSON.parse(s) for a WTF-8 string s: only space, tab, LF and
// CR are whitespace; numbers follow the JSON grammar and round to the
// nearest float64 (1e400 is Infinity); duplicate keys keep the last value at
// the first key's position; "\ud83d" escapes yield lone surrogates and
// escaped or raw halves of a pair join into one character.
func ParseJSON(s string) (JSONValue, error) {
	p := getParser(s)
	v, err := p.parse()
	p.release()
	return v, err
}

// maxPooledScratch bounds the member scratch a pooled parser keeps: one
// that parsed a huge object or array is left to the collector instead of
// holding its scratch until the pool is next emptied.
const maxPooledScratch = 1024

// getParser takes a pooled parser positioned at the start of s.
func getParser(s string) *jsonParser {
	p := parsers.Get().(*jsonParser)
	p.s, p.i = s, 0
	return p
}

// release returns p to the pool with its scratch empty and holding no
// parsed value, so a pooled parser keeps nothing of its input alive.
// (p.hi counts keys, which AppendRestringified may push past the value
// scratch's capacity.)
func (p *jsonParser) release() {
	if cap(p.keys) > maxPooledScratch || cap(p.vals) > maxPooledScratch {
		return
	}
	clear(p.keys[:min(p.hi, cap(p.keys))])
	clear(p.vals[:min(p.hi, cap(p.vals))])
	p.s, p.keys, p.vals, p.hi = "", p.keys[:0], p.vals[:0], 0
	parsers.Put(p)
}

// parsers holds parsers with their member scratch: a parser's scratch
// escapes (the parse recurses through methods on it), so a fresh one per
// call was a heap allocation of over a kilobyte, zeroed, for every parse.
var parsers = sync.Pool{New: func() any {
	return &jsonParser{keys: make([]string, 0, 16), vals: make([]JSONValue, 0, 16)}
}}

func (p *jsonParser) parse() (JSONValue, error) {
	p.space()
	v, err := p.value(0)
	if err != nil {
		return JSONValue{}, err
	}
	p.space()
	if p.i < len(p.s) {
		return JSONValue{}, p.fail("unexpected data after JSON value")
	}
	return v, nil
}

type jsonParser struct {
	s string
	i int
	// keys and vals hold the members of the objects and arrays being
	// parsed, innermost last, so that each gets its slices made once at
	// its full size instead of grown.
	keys []string
	vals []JSONValue
	// hi is the most members keys and vals have held at once in this
	// parse: what ParseJSON clears before pooling the parser.
	hi int
}

// maxDepth bounds recursion; V8 throws RangeError far deeper than any real
// message, and a bound keeps hostile input from exhausting the Go stack.
const maxDepth = 10000

func (p *jsonParser) fail(msg string) error { return &SyntaxError{Offset: p.i, Msg: msg} }

func (p *jsonParser) space() {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *jsonParser) value(depth int) (JSONValue, error) {
	if depth > maxDepth {
		return JSONValue{}, p.fail("nesting too deep")
	}
	if p.i >= len(p.s) {
		return JSONValue{}, p.fail("unexpected end of JSON input")
	}
	switch c := p.s[p.i]; {
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.array(depth)
	case c == '"':
		s, err := p.str()
		return StringValue(s), err
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	case p.literal("true"):
		return BoolValue(true), nil
	case p.literal("false"):
		return BoolValue(false), nil
	case p.literal("null"):
		return NullValue(), nil
	}
	return JSONValue{}, p.fail(fmt.Sprintf("unexpected character %q", p.s[p.i]))
}

func (p *jsonParser) literal(word string) bool {
	if len(p.s)-p.i >= len(word) && p.s[p.i:p.i+len(word)] == word {
		p.i += len(word)
		return true
	}
	return false
}

func (p *jsonParser) object(depth int) (JSONValue, error) {
	p.i++ // {
	p.space()
	if p.i < len(p.s) && p.s[p.i] == '}' {
		p.i++
		return ObjectValue(NewObject()), nil
	}
	kbase, vbase := len(p.keys), len(p.vals)
	defer func() { p.keys, p.vals = p.keys[:kbase], p.vals[:vbase] }()
	for {
		p.space()
		if p.i >= len(p.s) || p.s[p.i] != '"' {
			return JSONValue{}, p.fail("expected property name")
		}
		key, err := p.str()
		if err != nil {
			return JSONValue{}, err
		}
		p.space()
		if p.i >= len(p.s) || p.s[p.i] != ':' {
			return JSONValue{}, p.fail("expected ':' after property name")
		}
		p.i++
		p.space()
		v, err := p.value(depth + 1)
		if err != nil {
			return JSONValue{}, err
		}
		p.keys, p.vals = append(p.keys, key), append(p.vals, v)
		p.hi = max(p.hi, len(p.vals))
		p.space()
		if p.i >= len(p.s) {
			return JSONValue{}, p.fail("unterminated object")
		}
		switch p.s[p.i] {
		case ',':
			p.i++
		case '}':
			p.i++
			return ObjectValue(newObjectOf(p.keys[kbase:], p.vals[vbase:])), nil
		default:
			return JSONValue{}, p.fail("expected ',' or '}' in object")
		}
	}
}

// emptyArray is the holder every parsed [] shares: an array's holder is
// reachable only through arr(), which hands out its elements, and a slice of
// none cannot be written through (an append to it allocates), so sharing
// saves the allocation a holder of its own costs per empty array.
var emptyArray = JSONObject{vals: []JSONValue{}}

func (p *jsonParser) array(depth int) (JSONValue, error) {
	p.i++ // [
	p.space()
	if p.i < len(p.s) && p.s[p.i] == ']' {
		p.i++
		return JSONValue{kind: Array, obj: &emptyArray}, nil
	}
	base := len(p.vals)
	defer func() { p.vals = p.vals[:base] }()
	for {
		p.space()
		v, err := p.value(depth + 1)
		if err != nil {
			return JSONValue{}, err
		}
		p.vals = append(p.vals, v)
		p.hi = max(p.hi, len(p.vals))
		p.space()
		if p.i >= len(p.s) {
			return JSONValue{}, p.fail("unterminated array")
		}
		switch p.s[p.i] {
		case ',':
			p.i++
		case ']':
			p.i++
			return JSONValue{kind: Array, obj: newArrayOf(p.vals[base:])}, nil
		default:
			return JSONValue{}, p.fail("expected ',' or ']' in array")
		}
	}
}

func (p *jsonParser) number() (JSONValue, error) {
	start := p.i
	if p.s[p.i] == '-' {
		p.i++
	}
	digits := func() int {
		n := 0
		for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
			p.i++
			n++
		}
		return n
	}
	if p.i < len(p.s) && p.s[p.i] == '0' {
		p.i++
	} else if digits() == 0 {
		return JSONValue{}, p.fail("no number after minus sign")
	}
	if p.i < len(p.s) && p.s[p.i] == '.' {
		p.i++
		if digits() == 0 {
			return JSONValue{}, p.fail("unterminated fractional number")
		}
	}
	if p.i < len(p.s) && (p.s[p.i] == 'e' || p.s[p.i] == 'E') {
		p.i++
		if p.i < len(p.s) && (p.s[p.i] == '+' || p.s[p.i] == '-') {
			p.i++
		}
		if digits() == 0 {
			return JSONValue{}, p.fail("exponent part is missing a number")
		}
	}
	// ParseFloat rounds correctly and returns ±Inf (with ErrRange) on
	// overflow, which is what JS does.
	f, _ := strconv.ParseFloat(p.s[start:p.i], 64)
	return NumberValue(f), nil
}

// newObjectOf is the object JSON.parse makes of these members in source
// order: a repeated key keeps its first position and its last value.
func newObjectOf(keys []string, vals []JSONValue) *JSONObject {
	o := newSizedObject(len(keys))
	for i, k := range keys {
		o.Set(k, vals[i])
	}
	return o
}

func hexVal(c byte) rune {
	switch {
	case c >= '0' && c <= '9':
		return rune(c - '0')
	case c >= 'a' && c <= 'f':
		return rune(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return rune(c-'A') + 10
	}
	return -1
}

// str parses a string literal at p.i (which is '"').
func (p *jsonParser) str() (string, error) {
	p.i++
	start := p.i
	// Fast path: plain ASCII/UTF-8 with no escapes, no controls and no
	// surrogate forms that could need re-joining.
	for p.i < len(p.s) {
		// 8 plain bytes at a time (plainWord: ASCII, not a control, '"'
		// or '\\'), then byte by byte to the next byte that needs a look,
		// at most to the end of the window the word test turned down (as
		// appendQuoted)
		for p.i+8 <= len(p.s) && plainWord(loadWord(p.s[p.i:p.i+8])) {
			p.i += 8
		}
		end := min(p.i+8, len(p.s))
		for p.i < end && plainByte[p.s[p.i]] {
			p.i++
		}
		if p.i == end {
			continue
		}
		c := p.s[p.i]
		if c == '"' {
			s := p.s[start:p.i]
			p.i++
			return s, nil
		}
		if c == '\\' || c < 0x20 {
			break
		}
		// c >= utf8.RuneSelf
		r, n := decodeUnit(p.s, p.i)
		if (r >= 0xD800 && r <= 0xDFFF) || (r == utf8.RuneError && n == 1) {
			break
		}
		p.i += n
	}
	buf := make([]byte, 0, p.i-start+16)
	buf = append(buf, p.s[start:p.i]...)
	for {
		if p.i >= len(p.s) {
			return "", p.fail("unterminated string")
		}
		c := p.s[p.i]
		switch {
		case c == '"':
			p.i++
			return string(buf), nil
		case c < 0x20:
			return "", p.fail("bad control character in string literal")
		case c == '\\':
			if p.i+1 >= len(p.s) {
				return "", p.fail("unterminated string")
			}
			e := p.s[p.i+1]
			p.i += 2
			switch e {
			case '"', '\\', '/':
				buf = append(buf, e)
			case 'b':
				buf = append(buf, '\b')
			case 'f':
				buf = append(buf, '\f')
			case 'n':
				buf = append(buf, '\n')
			case 'r':
				buf = append(buf, '\r')
			case 't':
				buf = append(buf, '\t')
			case 'u':
				if p.i+4 > len(p.s) {
					return "", p.fail("bad Unicode escape")
				}
				var r rune
				for k := 0; k < 4; k++ {
					h := hexVal(p.s[p.i+k])
					if h < 0 {
						return "", p.fail("bad Unicode escape")
					}
					r = r<<4 | h
				}
				p.i += 4
				buf = AppendCodeUnit(buf, r)
			default:
				p.i -= 2
				return "", p.fail("bad escaped character")
			}
		case c < utf8.RuneSelf:
			buf = append(buf, c)
			p.i++
		default:
			r, n := decodeUnit(p.s, p.i)
			buf = AppendCodeUnit(buf, r)
			p.i += n
		}
	}
}

// newSizedObject is an empty object with room for n members. Up to 8
// members, the object and its key and value slices are one allocation
// instead of three (most parsed objects are small); the slices are capped,
// so a later Set past n grows them apart as before.
func newSizedObject(n int) *JSONObject {
	switch {
	case n <= 1:
		b := new(struct {
			o JSONObject
			k [1]string
			v [1]JSONValue
		})
		b.o.keys, b.o.vals = b.k[:0:1], b.v[:0:1]
		return &b.o
	case n == 2:
		b := new(struct {
			o JSONObject
			k [2]string
			v [2]JSONValue
		})
		b.o.keys, b.o.vals = b.k[:0:2], b.v[:0:2]
		return &b.o
	case n == 3:
		b := new(struct {
			o JSONObject
			k [3]string
			v [3]JSONValue
		})
		b.o.keys, b.o.vals = b.k[:0:3], b.v[:0:3]
		return &b.o
	case n == 4:
		b := new(struct {
			o JSONObject
			k [4]string
			v [4]JSONValue
		})
		b.o.keys, b.o.vals = b.k[:0:4], b.v[:0:4]
		return &b.o
	case n <= 6:
		b := new(struct {
			o JSONObject
			k [6]string
			v [6]JSONValue
		})
		b.o.keys, b.o.vals = b.k[:0:6], b.v[:0:6]
		return &b.o
	case n <= 8:
		b := new(struct {
			o JSONObject
			k [8]string
			v [8]JSONValue
		})
		b.o.keys, b.o.vals = b.k[:0:8], b.v[:0:8]
		return &b.o
	}
	return &JSONObject{keys: make([]string, 0, n), vals: make([]JSONValue, 0, n)}
}

// newArrayOf is the holder of a parsed array with a copy of elems. Up to 8
// elements, the holder and its elements are one allocation instead of two
// (a holder and a clone); the elements are capped at their count, so an
// append to them copies, as one to a clone of exactly their size may.
func newArrayOf(elems []JSONValue) *JSONObject {
	var o *JSONObject
	switch n := len(elems); {
	case n <= 1:
		b := new(struct {
			o JSONObject
			v [1]JSONValue
		})
		o, b.o.vals = &b.o, b.v[:n:n]
	case n == 2:
		b := new(struct {
			o JSONObject
			v [2]JSONValue
		})
		o, b.o.vals = &b.o, b.v[:]
	case n == 3:
		b := new(struct {
			o JSONObject
			v [3]JSONValue
		})
		o, b.o.vals = &b.o, b.v[:]
	case n == 4:
		b := new(struct {
			o JSONObject
			v [4]JSONValue
		})
		o, b.o.vals = &b.o, b.v[:]
	case n <= 8:
		b := new(struct {
			o JSONObject
			v [8]JSONValue
		})
		o, b.o.vals = &b.o, b.v[:n:n]
	default:
		o = &JSONObject{vals: make([]JSONValue, n)}
	}
	copy(o.vals, elems)
	return o
}
