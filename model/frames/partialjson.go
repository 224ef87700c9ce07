package frames

import (
	"math"
	"strings"

	"github.com/frameproof/frameproof/impl/pi"
)

// maxPartialDepth bounds nesting. V8 throws a RangeError at an
// engine-dependent depth, which partial-json's innermost array or object
// catches; here the nesting limit is that throw, at a fixed depth far beyond
// any tool call's arguments.
const maxPartialDepth = 10000

// partialParser states partial-json 0.1.7's parser with Allow.ALL (every
// kind may be partial) on a trimmed text s. Its quirks are the behaviour:
// a key is read as a string whatever character it starts with, the byte
// after a key is skipped as the colon whatever it is, a value that throws
// ends its object or array (which is returned as far as it got), and the
// retries cut at the last backslash or the last "e" of the whole text, not
// of the token. Positions may run past the end after a literal completed
// from a prefix ("nu" is null and moves four bytes); past the end reads as
// "no character".
type partialParser struct {
	s string
	i int
	// protos holds the [[Prototype]] of each object this parse built whose
	// prototype a "__proto__" member replaced (absent: Object.prototype).
	protos map[*pi.JSONObject]pi.JSONValue
}

// peek reports whether the byte at the position is c.
func (p *partialParser) peek(c byte) bool { return p.i < len(p.s) && p.s[p.i] == c }

// blank skips JSON whitespace: space, LF, CR and tab.
func (p *partialParser) blank() {
	for p.i < len(p.s) && strings.IndexByte(" \n\r\t", p.s[p.i]) >= 0 {
		p.i++
	}
}

// literal is one word parseAny accepts whole or, at the end of the text, as
// a prefix longer than minPrefix bytes.
type literal struct {
	word      string
	minPrefix int
	value     pi.JSONValue
}

var posInf, nan = math.Inf(1), math.NaN()

// literals are parseAny's words in the order it tries them.
var literals = []literal{
	{"null", 0, pi.NullValue()},
	{"true", 0, pi.BoolValue(true)},
	{"false", 0, pi.BoolValue(false)},
	{"Infinity", 0, pi.NumberValue(posInf)},
	{"-Infinity", 1, pi.NumberValue(-posInf)},
	{"NaN", 0, pi.NumberValue(nan)},
}

func (p *partialParser) any(depth int) (pi.JSONValue, error) {
	p.blank()
	if p.i >= len(p.s) || depth > maxPartialDepth {
		return pi.JSONValue{}, errPartial
	}
	switch p.s[p.i] {
	case '"':
		return p.str()
	case '{':
		return p.object(depth)
	case '[':
		return p.array(depth)
	}
	rest := p.s[p.i:]
	for _, l := range literals {
		whole := strings.HasPrefix(rest, l.word)
		prefix := len(rest) < len(l.word) && len(rest) > l.minPrefix && strings.HasPrefix(l.word, rest)
		if whole || prefix {
			p.i += len(l.word)
			return l.value, nil
		}
	}
	return p.number()
}

// str reads a string from the current byte, which it takes for the opening
// quote unchecked. Unterminated, it closes the string after dropping a
// dangling backslash; if that is not JSON it cuts at the text's last
// backslash instead.
func (p *partialParser) str() (pi.JSONValue, error) {
	start := p.i
	p.i++
	escaped := false
	for p.i < len(p.s) && (p.s[p.i] != '"' || escaped) {
		escaped = p.s[p.i] == '\\' && !escaped
		p.i++
	}
	if p.i < len(p.s) {
		p.i++
		return parseOrThrow(p.s[start:p.i])
	}
	end := p.i
	if escaped {
		end--
	}
	if v, err := pi.ParseJSON(p.s[start:end] + `"`); err == nil {
		return v, nil
	}
	return parseOrThrow(jsSubstring(p.s, start, strings.LastIndexByte(p.s, '\\')) + `"`)
}

// object reads members until "}" or the first throw, which ends the object
// as far as it got.
func (p *partialParser) object(depth int) (pi.JSONValue, error) {
	p.i++
	p.blank()
	obj := pi.NewObject()
	for !p.peek('}') {
		p.blank()
		if p.i >= len(p.s) {
			return pi.ObjectValue(obj), nil
		}
		key, err := p.str()
		if err != nil || key.Kind() != pi.String {
			// A JSON text ending in a quote is a string, so every key that
			// parses is one; the kind check only keeps that explicit.
			return pi.ObjectValue(obj), nil
		}
		p.blank()
		if p.skipUnit() {
			// The colon's place held an astral character and the skip
			// stopped between its halves: parseAny then reads a number
			// token starting with a lone low surrogate, which never parses.
			p.numberToken()
			return pi.ObjectValue(obj), nil
		}
		v, err := p.any(depth + 1)
		if err != nil {
			return pi.ObjectValue(obj), nil
		}
		p.assign(obj, key.Str(), v)
		p.blank()
		if p.peek(',') {
			p.i++
		}
	}
	p.i++
	return pi.ObjectValue(obj), nil
}

// skipUnit moves past one UTF-16 code unit, the colon partial-json skips
// unchecked, and reports whether that unit was the high half of an astral
// character (the position is then past the whole character).
func (p *partialParser) skipUnit() (midPair bool) {
	if p.i >= len(p.s) {
		p.i++
		return false
	}
	switch c := p.s[p.i]; {
	case c < 0xC0:
		p.i++
	case c < 0xE0:
		p.i += 2
	case c < 0xF0:
		p.i += 3
	default:
		p.i += 4
		return true
	}
	return false
}

// assign is obj[key] = v (OrdinarySet). Every key but "__proto__" creates
// or updates an own data property: nothing on the prototype chains this
// parse can build (Object.prototype, Array.prototype, arrays and objects it
// parsed) has a setter or a read-only property by another name. For
// "__proto__" the assignment finds, in order: an own property (updated); a
// data property on the chain or the end of a null-terminated chain (an own
// property is created); or Object.prototype's accessor, which replaces the
// prototype with an object, array or null and ignores anything else.
func (p *partialParser) assign(obj *pi.JSONObject, key string, v pi.JSONValue) {
	if key != "__proto__" || obj.Has(key) || !p.reachesProtoSetter(obj) {
		obj.Set(key, v)
		return
	}
	switch v.Kind() {
	case pi.Object, pi.Array, pi.Null:
		if p.protos == nil {
			p.protos = map[*pi.JSONObject]pi.JSONValue{}
		}
		p.protos[obj] = v
	}
}

// reachesProtoSetter reports whether looking "__proto__" up on obj's
// prototype chain ends at Object.prototype's accessor.
func (p *partialParser) reachesProtoSetter(obj *pi.JSONObject) bool {
	for {
		proto, replaced := p.protos[obj]
		switch {
		case !replaced:
			return true // Object.prototype
		case proto.Kind() == pi.Null:
			return false
		case proto.Kind() == pi.Array:
			return true // the array, Array.prototype, Object.prototype
		}
		obj = proto.ObjectValue()
		if obj.Has("__proto__") {
			return false // a writable data property
		}
	}
}

// array reads elements until "]" or the first throw, which ends the array as
// far as it got.
func (p *partialParser) array(depth int) (pi.JSONValue, error) {
	p.i++
	arr := []pi.JSONValue{}
	for !p.peek(']') {
		before := p.i
		v, err := p.any(depth + 1)
		if err != nil {
			return pi.ArrayValue(arr), nil
		}
		arr = append(arr, v)
		p.blank()
		if p.peek(',') {
			p.i++
		}
		if p.i == before {
			// An element that consumed nothing would repeat forever (JS
			// would loop until memory runs out); end the array instead.
			return pi.ArrayValue(arr), nil
		}
	}
	p.i++
	return pi.ArrayValue(arr), nil
}

// number reads a number. At the start of the text it is the whole text;
// elsewhere it runs to the next ",", "]" or "}". If that is not JSON, it
// retries cut at the text's last "e" (a dangling exponent).
func (p *partialParser) number() (pi.JSONValue, error) {
	lastE := strings.LastIndexByte(p.s, 'e')
	if p.i == 0 {
		if p.s == "-" {
			return pi.JSONValue{}, errPartial
		}
		if v, err := pi.ParseJSON(p.s); err == nil {
			return v, nil
		}
		return parseOrThrow(jsSubstring(p.s, 0, lastE))
	}
	start := p.i
	token := p.numberToken()
	if v, err := pi.ParseJSON(token); err == nil {
		return v, nil
	}
	if token == "-" {
		return pi.JSONValue{}, errPartial
	}
	return parseOrThrow(jsSubstring(p.s, start, lastE))
}

// numberToken moves to the next ",", "]" or "}" (past a leading "-") and
// returns what it passed.
func (p *partialParser) numberToken() string {
	start := p.i
	if p.i < len(p.s) && p.s[p.i] == '-' {
		p.i++
	}
	for p.i < len(p.s) && strings.IndexByte(",]}", p.s[p.i]) < 0 {
		p.i++
	}
	return p.s[start:p.i]
}

// parseOrThrow is JSON.parse whose SyntaxError is partial-json's throw.
func parseOrThrow(s string) (pi.JSONValue, error) {
	v, err := pi.ParseJSON(s)
	if err != nil {
		return pi.JSONValue{}, errPartial
	}
	return v, nil
}
