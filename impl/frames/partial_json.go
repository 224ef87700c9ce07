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
	s := jsTrim(units)
	if len(s) == 0 {
		return pi.JSONValue{}, errPartial
	}
	p := &partialParser{s: s, lastBackslash: -1, lastE: -1, setter: map[*pi.JSONObject]*protoState{}}
	for i, c := range s {
		switch c {
		case '\\':
			p.lastBackslash = i
		case 'e':
			p.lastE = i
		}
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
	if v, err := jsonParseUnits(p.substring(start, p.lastE)); err == nil {
		return v, nil
	}
	return pi.JSONValue{}, errPartial
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
