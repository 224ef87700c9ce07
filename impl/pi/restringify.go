package pi

import "math"

// AppendRestringified appends JSON.stringify(JSON.parse(s)) for the JSON
// texts it can write in one pass, without building the parsed value:
// AppendJSON of ParseJSON(s), byte for byte. It reports false, with dst as
// it was given, for any text it leaves to that pair: invalid JSON, and
// objects whose members JS would reorder or merge (an integer-like key, a
// repeated key) or that have many members. A comparison that renders
// stored JSON in one byte form (the simulator's canonical frames) calls it
// first and falls back to ParseJSON and AppendJSON.
func AppendRestringified(dst []byte, s string) ([]byte, bool) {
	p := getParser(s)
	n := len(dst)
	p.space()
	out, ok := p.restringify(dst, 0)
	if ok {
		p.space()
		ok = p.i == len(p.s)
	}
	p.release()
	if !ok {
		return dst[:n], false
	}
	return out, true
}

// restringifyMembers bounds the members of an object written in one pass
// (each new key is compared with the ones before it).
const restringifyMembers = 64

// restringify writes the value at p.i as AppendJSON writes its parse.
func (p *jsonParser) restringify(dst []byte, depth int) ([]byte, bool) {
	if depth > maxDepth || p.i >= len(p.s) {
		return dst, false
	}
	switch c := p.s[p.i]; {
	case c == '{':
		return p.restringifyObject(dst, depth)
	case c == '[':
		p.i++
		dst = append(dst, '[')
		p.space()
		if p.i < len(p.s) && p.s[p.i] == ']' {
			p.i++
			return append(dst, ']'), true
		}
		for {
			p.space()
			var ok, end bool
			if dst, ok = p.restringify(dst, depth+1); !ok {
				return dst, false
			}
			if end, ok = p.restringifySep(']'); !ok || end {
				return append(dst, ']'), ok
			}
			dst = append(dst, ',')
		}
	case c == '"':
		str, err := p.str()
		if err != nil {
			return dst, false
		}
		return AppendQuote(dst, str), true
	case c == '-' || (c >= '0' && c <= '9'):
		v, err := p.number()
		if err != nil {
			return dst, false
		}
		if math.IsNaN(v.n) || math.IsInf(v.n, 0) {
			return append(dst, "null"...), true
		}
		return AppendNumber(dst, v.n), true
	case p.literal("true"):
		return append(dst, "true"...), true
	case p.literal("false"):
		return append(dst, "false"...), true
	case p.literal("null"):
		return append(dst, "null"...), true
	}
	return dst, false
}

func (p *jsonParser) restringifyObject(dst []byte, depth int) ([]byte, bool) {
	p.i++ // {
	dst = append(dst, '{')
	p.space()
	if p.i < len(p.s) && p.s[p.i] == '}' {
		p.i++
		return append(dst, '}'), true
	}
	kbase := len(p.keys)
	defer func() { p.keys = p.keys[:kbase] }()
	for {
		p.space()
		if p.i >= len(p.s) || p.s[p.i] != '"' {
			return dst, false
		}
		key, err := p.str()
		if err != nil || IsArrayIndex(key) || len(p.keys)-kbase >= restringifyMembers {
			return dst, false
		}
		for _, k := range p.keys[kbase:] {
			if k == key {
				return dst, false
			}
		}
		p.keys = append(p.keys, key)
		p.hi = max(p.hi, len(p.keys))
		p.space()
		if p.i >= len(p.s) || p.s[p.i] != ':' {
			return dst, false
		}
		p.i++
		p.space()
		if len(p.keys)-kbase > 1 {
			dst = append(dst, ',')
		}
		dst = AppendQuote(dst, key)
		dst = append(dst, ':')
		var ok, end bool
		if dst, ok = p.restringify(dst, depth+1); !ok {
			return dst, false
		}
		if end, ok = p.restringifySep('}'); !ok || end {
			return append(dst, '}'), ok
		}
	}
}

// restringifySep reads the space and the ',' or closer after a member:
// end at the closer, !ok at anything else (the caller writes the comma
// or closer; output after a failure is discarded).
func (p *jsonParser) restringifySep(closer byte) (end, ok bool) {
	p.space()
	if p.i >= len(p.s) {
		return false, false
	}
	switch p.s[p.i] {
	case ',':
		p.i++
		return false, true
	case closer:
		p.i++
		return true, true
	}
	return false, false
}
