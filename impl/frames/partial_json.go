package frames

import (
	"math"
	"strings"

	"github.com/frameproof/frameproof/impl/pi"
)

// partialParse is partial-json 0.1.7 parse(s) with the default Allow.ALL,
// quirks included: it works on JS code units, substring() clamps and swaps
// its bounds, lastIndexOf searches the whole (trimmed) input, object keys go
// through JSON.parse and ToPropertyKey, "__proto__" keys go through the
// Object.prototype setter, and a scan may run past the end of the input.
//
// Known divergences, both on inputs pi never streams: where the JS loops
// forever (an array scan stuck on '}') or overflows its stack (nesting
// deeper than maxPartialDepth), this returns an error instead, which the
// callers treat like any other partial-json exception.
func partialParse(units []uint16) (pi.JSONValue, error) {
	return newPartialParser(units).parse()
}

func newPartialParser(units []uint16) *partialParser {
	s := jsTrim(units)
	p := &partialParser{s: s, lastBackslash: -1, lastE: -1, setter: map[*pi.JSONObject]*protoState{}}
	for i, c := range s {
		switch c {
		case '\\':
			p.lastBackslash = i
		case 'e':
			p.lastE = i
		}
	}
	return p
}

func (p *partialParser) parse() (pi.JSONValue, error) {
	if len(p.s) == 0 {
		return pi.JSONValue{}, errPartial
	}
	return p.any(0)
}

const maxPartialDepth = 5000

// protoState tracks what `obj.__proto__ = v` does on one parsed object:
// while the Object.prototype accessor is reachable through the prototype
// chain (and the object has no own "__proto__"), assignment sets the
// prototype instead of creating a property.
type protoState struct {
	// reachesSetter: the accessor is found when looking up "__proto__"
	// on this object's prototype chain.
	reachesSetter bool
}

type partialParser struct {
	s             []uint16
	i             int
	lastBackslash int
	lastE         int
	setter        map[*pi.JSONObject]*protoState
	whole         wholePrefix
	// retry, when set, replaces retryAtLastE: tests put the literal
	// JSON.parse retry there to check the cheap one against.
	retry func(p *partialParser, start int) (pi.JSONValue, error)
}

func (p *partialParser) at(i int) (uint16, bool) {
	if i < 0 || i >= len(p.s) {
		return 0, false
	}
	return p.s[i], true
}

func (p *partialParser) is(i int, c uint16) bool {
	x, ok := p.at(i)
	return ok && x == c
}

// substring is String.prototype.substring(a, b) on the trimmed input.
func (p *partialParser) substring(a, b int) []uint16 {
	clamp := func(x int) int { return max(0, min(x, len(p.s))) }
	a, b = clamp(a), clamp(b)
	if a > b {
		a, b = b, a
	}
	return p.s[a:b]
}

func jsonParseUnits(u []uint16) (pi.JSONValue, error) {
	return pi.ParseJSON(pi.FromUTF16(u))
}

func (p *partialParser) skipBlank() {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', '\n', '\r', '\t':
			p.i++
		default:
			return
		}
	}
}

// literal matches word at i in full, or as a prefix running to the end of
// the input when the remaining length is below len(word) (and above
// minRest).
func (p *partialParser) literal(word string, minRest int) bool {
	rest := len(p.s) - p.i
	full := rest >= len(word) && unitsEqual(p.s[p.i:p.i+len(word)], word)
	partial := rest < len(word) && rest > minRest && unitsEqual(p.s[p.i:], word[:rest])
	if full || partial {
		p.i += len(word)
		return true
	}
	return false
}

func unitsEqual(u []uint16, s string) bool {
	if len(u) != len(s) {
		return false
	}
	for i := range u {
		if u[i] != uint16(s[i]) {
			return false
		}
	}
	return true
}

func (p *partialParser) any(depth int) (pi.JSONValue, error) {
	if depth > maxPartialDepth {
		return pi.JSONValue{}, errPartial
	}
	p.skipBlank()
	if p.i >= len(p.s) {
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
	switch {
	case p.literal("null", 0):
		return pi.NullValue(), nil
	case p.literal("true", 0):
		return pi.BoolValue(true), nil
	case p.literal("false", 0):
		return pi.BoolValue(false), nil
	case p.literal("Infinity", 0):
		return pi.NumberValue(math.Inf(1)), nil
	case p.literal("-Infinity", 1):
		return pi.NumberValue(math.Inf(-1)), nil
	case p.literal("NaN", 0):
		return pi.NumberValue(math.NaN()), nil
	}
	return p.number()
}

func (p *partialParser) str() (pi.JSONValue, error) {
	start := p.i
	escape := false
	p.i++
	for p.i < len(p.s) && (p.s[p.i] != '"' || (escape && p.s[p.i-1] == '\\')) {
		if p.s[p.i] == '\\' {
			escape = !escape
		} else {
			escape = false
		}
		p.i++
	}
	esc := 0
	if escape {
		esc = 1
	}
	if p.is(p.i, '"') {
		p.i++
		v, err := jsonParseUnits(p.substring(start, p.i-esc))
		if err != nil {
			return pi.JSONValue{}, errPartial
		}
		return v, nil
	}
	// Unterminated string (Allow.STR): close it; if that fails (a cut
	// escape), cut at the last backslash of the whole input.
	if v, err := jsonParseUnits(append(cloneUnits(p.substring(start, p.i-esc)), '"')); err == nil {
		return v, nil
	}
	v, err := jsonParseUnits(append(cloneUnits(p.substring(start, p.lastBackslash)), '"'))
	if err != nil {
		return pi.JSONValue{}, errPartial
	}
	return v, nil
}

func cloneUnits(u []uint16) []uint16 { return append(make([]uint16, 0, len(u)+1), u...) }

func (p *partialParser) object(depth int) (pi.JSONValue, error) {
	p.i++
	p.skipBlank()
	obj := pi.NewObject()
	state := &protoState{reachesSetter: true}
	p.setter[obj] = state
	for !p.is(p.i, '}') {
		p.skipBlank()
		if p.i >= len(p.s) {
			return pi.ObjectValue(obj), nil
		}
		key, err := p.str()
		if err != nil {
			return pi.ObjectValue(obj), nil
		}
		p.skipBlank()
		p.i++ // the colon, or whatever stands there
		value, err := p.any(depth + 1)
		if err != nil {
			return pi.ObjectValue(obj), nil
		}
		p.assign(obj, state, propertyKey(key), value)
		p.skipBlank()
		if p.is(p.i, ',') {
			p.i++
		}
	}
	p.i++
	return pi.ObjectValue(obj), nil
}

// assign is obj[key] = value on a plain object built by partial-json.
func (p *partialParser) assign(obj *pi.JSONObject, state *protoState, key string, value pi.JSONValue) {
	if key != "__proto__" || obj.Has(key) || !state.reachesSetter {
		obj.Set(key, value)
		return
	}
	// Object.prototype.__proto__ setter: primitives are ignored, an object
	// or null becomes the prototype.
	switch value.Kind() {
	case pi.Null:
		state.reachesSetter = false
	case pi.Array:
		state.reachesSetter = true // Array.prototype → Object.prototype
	case pi.Object:
		proto := value.ObjectValue()
		ps := p.setter[proto]
		state.reachesSetter = !proto.Has("__proto__") && (ps == nil || ps.reachesSetter)
	}
}

func (p *partialParser) array(depth int) (pi.JSONValue, error) {
	p.i++
	arr := []pi.JSONValue{}
	for !p.is(p.i, ']') {
		before := p.i
		v, err := p.any(depth + 1)
		if err != nil {
			return pi.ArrayValue(arr), nil
		}
		arr = append(arr, v)
		p.skipBlank()
		if p.is(p.i, ',') {
			p.i++
		}
		if p.i == before {
			// The JS loops forever here; see partialParse.
			return pi.JSONValue{}, errPartial
		}
	}
	p.i++
	return pi.ArrayValue(arr), nil
}

func (p *partialParser) number() (pi.JSONValue, error) {
	if p.i == 0 {
		if len(p.s) == 1 && p.s[0] == '-' {
			return pi.JSONValue{}, errPartial
		}
		if v, err := jsonParseUnits(p.s); err == nil {
			return v, nil
		}
		if v, err := jsonParseUnits(p.substring(0, p.lastE)); err == nil {
			return v, nil
		}
		return pi.JSONValue{}, errPartial
	}
	start := p.i
	if p.s[p.i] == '-' {
		p.i++
	}
	for p.i < len(p.s) && p.s[p.i] != ',' && p.s[p.i] != ']' && p.s[p.i] != '}' {
		p.i++
	}
	text := p.substring(start, p.i)
	if v, err := jsonParseUnits(text); err == nil {
		return v, nil
	}
	if len(text) == 1 && text[0] == '-' {
		return pi.JSONValue{}, errPartial
	}
	if p.retry != nil {
		return p.retry(p, start)
	}
	return p.retryAtLastE(start)
}

// retryAtLastE is parseNum's last resort after JSON.parse of the number's
// text s[start:p.i] failed: JSON.parse(jsonString.substring(start,
// jsonString.lastIndexOf("e"))). Done literally it converts and parses
// O(N) units per failed number, and a failure inside a nested container
// does not end the parse, so `[[-e,[-e,…` cost O(N²). The outcome is known
// without that work:
//   - lastE > p.i: the substring is the text, then the ',', ']' or '}'
//     that ended it, then more. The text starts with none of '"', '{',
//     '[' or blank, so it holds at most a number or literal token, which
//     that character can neither continue nor follow: a failure.
//   - start <= lastE <= p.i: a prefix of the text, parsed at the cost of
//     the scan just done.
//   - 0 <= lastE < start: substring swaps its bounds, giving s[lastE:start],
//     which starts with 'e': a failure.
//   - lastE = -1: substring clamps it to 0 and swaps, giving s[0:start],
//     all the input before the number, which can be a whole JSON text
//     once partial-json has lost track of the nesting: in
//     `[{"a":[ ]},"[{","",1] x` the x is retried as the text before it,
//     which parses. See wholePrefix.
func (p *partialParser) retryAtLastE(start int) (pi.JSONValue, error) {
	switch {
	case p.lastE > p.i:
		return pi.JSONValue{}, errPartial
	case p.lastE >= start:
		return p.parsedOrPartial(p.s[start:p.lastE])
	case p.lastE >= 0:
		return pi.JSONValue{}, errPartial
	}
	return p.whole.parse(p.s, start)
}

func (p *partialParser) parsedOrPartial(u []uint16) (pi.JSONValue, error) {
	if v, err := jsonParseUnits(u); err == nil {
		return v, nil
	}
	return pi.JSONValue{}, errPartial
}

// wholePrefix is JSON.parse(s.substring(0, start)) for the numbers of one
// parse, in O(N) for all of them. A number nests only in a container, so
// s[0] is '[' or '{', and s[0:start] is a JSON text only if that container
// closes at some c, found by matching brackets outside strings, with JSON
// blanks alone from c up to start; start is not blank (parseAny skipped
// them), so only start == end can succeed, and only then is s[0:start]
// parsed. The value is kept: the same start comes back only where an array
// parses one '}' again and again (the JS never ends; array() gives up with
// an error), and such an array and all it holds are discarded, so sharing
// the value is not observable.
type wholePrefix struct {
	done  bool
	end   int // -1: s[0] opens no container that closes
	value pi.JSONValue
	err   error
	tried bool
}

func (w *wholePrefix) parse(s []uint16, start int) (pi.JSONValue, error) {
	if len(s) == 0 || (s[0] != '[' && s[0] != '{') {
		// Unreachable (see above); the literal retry keeps it exact.
		v, err := jsonParseUnits(s[:min(start, len(s))])
		if err != nil {
			return pi.JSONValue{}, errPartial
		}
		return v, nil
	}
	if !w.done {
		w.done, w.end = true, blankEnd(s, containerEnd(s))
	}
	if start != w.end {
		return pi.JSONValue{}, errPartial
	}
	if !w.tried {
		w.tried = true
		w.value, w.err = jsonParseUnits(s[:start])
		if w.err != nil {
			w.err = errPartial
		}
	}
	return w.value, w.err
}

// containerEnd is the index after the bracket that closes s[0], counting
// brackets of either kind outside strings (exact for a JSON text), or -1.
func containerEnd(s []uint16) int {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '"':
			for i++; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' {
					i++
				}
			}
		case '[', '{':
			depth++
		case ']', '}':
			if depth--; depth == 0 {
				return i + 1
			}
		}
	}
	return -1
}

// blankEnd skips JSON.parse's blanks from i (-1 stays -1).
func blankEnd(s []uint16, i int) int {
	for i >= 0 && i < len(s) && (s[i] == ' ' || s[i] == '\n' || s[i] == '\r' || s[i] == '\t') {
		i++
	}
	return i
}

// propertyKey is ToPropertyKey(v) for a value JSON.parse produced.
func propertyKey(v pi.JSONValue) string {
	switch v.Kind() {
	case pi.String:
		return v.Str()
	case pi.Null:
		return "null"
	case pi.Bool:
		if v.Bool() {
			return "true"
		}
		return "false"
	case pi.Number:
		return pi.FormatNumber(v.Number())
	case pi.Array:
		parts := make([]string, len(v.Array()))
		for i, e := range v.Array() {
			if e.Kind() != pi.Null && e.Kind() != pi.Undefined {
				parts[i] = propertyKey(e)
			}
		}
		return strings.Join(parts, ",")
	}
	return "[object Object]"
}
