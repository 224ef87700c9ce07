package pi

import "strings"

// A parse of a text with many containers takes their storage from one
// arena: three allocations (the containers' headers, all keys, all values)
// instead of one or more per object and array. makeArena sizes it from a
// count of the text's brackets, colons and commas outside strings, which
// for valid JSON bounds what the parse takes; a container that finds the
// arena short (only on a miscounted, that is invalid, text) is allocated on
// its own. Every container's slices are capped at its members, so a later
// Set or append on one copies instead of writing into its neighbours'.

// arenaFrom is the least number of containers for which a parse uses an
// arena: below it, the containers' own allocations (one each, newSizedObject
// and newArrayOf) are no more than the arena's three.
const arenaFrom = 4

// maxArenaDepth bounds the nesting makeArena follows (deeper texts parse
// without an arena).
const maxArenaDepth = 64

type arena struct {
	objs []JSONObject
	keys []string
	vals []JSONValue
}

// makeArena sizes p.arena for p.s, or leaves it empty.
func (p *jsonParser) makeArena() {
	s := p.s
	var inArray [maxArenaDepth]bool
	depth, containers, colons, elems := 0, 0, 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '"':
			// the closing quote: the first one after i not escaped
			for {
				j := strings.IndexByte(s[i+1:], '"')
				if j < 0 {
					return // unterminated: the parse fails
				}
				i += 1 + j
				k := i - 1
				for s[k] == '\\' {
					k--
				}
				if (i-1-k)%2 == 0 {
					break
				}
			}
		case '{', '[':
			if depth == maxArenaDepth {
				return
			}
			inArray[depth] = s[i] == '['
			depth++
			switch {
			case s[i] == '{':
				containers++
			case i+1 < len(s) && s[i+1] == ']':
				// [] shares emptyArray
			default:
				containers++
				elems++ // its first element (one too many when empty)
			}
		case '}', ']':
			if depth == 0 {
				return // invalid: the parse fails
			}
			depth--
		case ':':
			colons++
		case ',':
			if depth > 0 && inArray[depth-1] {
				elems++
			}
		}
	}
	if containers < arenaFrom {
		return
	}
	p.arena = arena{
		objs: make([]JSONObject, containers),
		keys: make([]string, colons),
		vals: make([]JSONValue, colons+elems),
	}
}

// object takes an empty object from the arena, or nil when it has none.
func (a *arena) object() *JSONObject {
	if len(a.objs) == 0 {
		return nil
	}
	o := &a.objs[0]
	a.objs = a.objs[1:]
	return o
}

// newObject is newObjectOf from the arena when it has room.
func (p *jsonParser) newObject(keys []string, vals []JSONValue) *JSONObject {
	a := &p.arena
	n := len(keys)
	if len(a.objs) == 0 || len(a.keys) < n || len(a.vals) < n {
		return newObjectOf(keys, vals)
	}
	o := a.object()
	o.keys, o.vals = a.keys[:0:n], a.vals[:0:n]
	a.keys, a.vals = a.keys[n:], a.vals[n:]
	for i, k := range keys {
		o.Set(k, vals[i])
	}
	return o
}

// newArray is newArrayOf from the arena when it has room.
func (p *jsonParser) newArray(elems []JSONValue) *JSONObject {
	a := &p.arena
	n := len(elems)
	if len(a.objs) == 0 || len(a.vals) < n {
		return newArrayOf(elems)
	}
	o := a.object()
	o.vals = a.vals[:n:n]
	a.vals = a.vals[n:]
	copy(o.vals, elems)
	return o
}
