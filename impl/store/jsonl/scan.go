package jsonl

import "github.com/frameproof/frameproof/impl/store/internal/jsonstr"

// scanner checks JSON syntax exactly as JSON.parse accepts it (RFC 8259:
// whitespace is space, tab, LF and CR; no trailing commas; numbers without
// leading zeros) and reports byte spans, without decoding or allocating.
// Bytes that are not valid UTF-8 are accepted inside strings, as node's
// text read turns them into U+FFFD before JSON.parse sees them. Nesting is
// tracked on an explicit stack, so depth costs memory, never Go stack.
type scanner struct {
	b     []byte
	stack []byte
	ws    bool // insignificant whitespace was skipped somewhere
	// lines is set when b is the rest of a file rather than one line: a
	// newline is then no whitespace but the end of the input, so the scan
	// goes exactly as it would over the line alone (a newline in a string
	// ends it as a control byte does).
	lines bool
	// memo lets the scan of a member's object value skip the bytes it
	// shares with the one before (memoValue); noMemo turns it off, for
	// the test that compares the two.
	memo   valueMemo
	noMemo bool
}

// valueMemo is a checkpoint in the last object value memoValue scanned:
// its bytes up to the first long string value in it (prefix, a copy) and
// the container stack there. The scan of a value is a function of its
// bytes, so a value that starts with prefix leaves the scan in that same
// state there, whatever line it is on: a session's messages start alike
// ({"role":"user","content":[{"type":"text","text":"...), so most of a
// message's structure is compared as bytes instead of scanned again.
type valueMemo struct {
	prefix, stack []byte
	// while marking, nested notes the first long string value at mark
	// (the scanner's index; -1 none) with its stack in markStack
	marking   bool
	mark      int
	markStack []byte
}

// memoLongString is how long a string value (quotes included) marks the
// checkpoint: the text of a message, past the structure that repeats.
const memoLongString = 32

func (s *scanner) reset(b []byte) {
	s.b = b
	s.ws, s.lines = false, false
}

// space skips whitespace from i. Compact JSON has none, so one byte above
// ' ' returns at once, inlined where it is called.
func (s *scanner) space(i int) int {
	if i < len(s.b) && s.b[i] > ' ' {
		return i
	}
	return s.skipSpace(i)
}

func (s *scanner) skipSpace(i int) int {
	j := i
	for j < len(s.b) {
		switch s.b[j] {
		case ' ', '\t', '\r':
			j++
			continue
		case '\n':
			if !s.lines {
				j++
				continue
			}
		}
		break
	}
	if j != i {
		s.ws = true
	}
	return j
}

// str scans the string literal starting at b[i] == '"' and returns the
// index after its closing quote and whether it holds escapes.
func (s *scanner) str(i int) (end int, esc, ok bool) {
	b := s.b
	j := i + 1
	for {
		j = jsonstr.PlainEnd(b, j)
		if j >= len(b) {
			return 0, false, false
		}
		switch c := b[j]; {
		case c == '"':
			return j + 1, esc, true
		case c == '\\':
			esc = true
			j++
			if j >= len(b) {
				return 0, false, false
			}
			switch b[j] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if j+4 >= len(b) {
					return 0, false, false
				}
				for k := 1; k <= 4; k++ {
					if !isHex(b[j+k]) {
						return 0, false, false
					}
				}
				j += 4
			default:
				return 0, false, false
			}
			j++
		default: // a control character
			return 0, false, false
		}
	}
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// num scans a number literal from i.
func (s *scanner) num(i int) (int, bool) {
	b := s.b
	j := i
	if j < len(b) && b[j] == '-' {
		j++
	}
	switch {
	case j < len(b) && b[j] == '0':
		j++
	case j < len(b) && b[j] >= '1' && b[j] <= '9':
		for j < len(b) && isDigit(b[j]) {
			j++
		}
	default:
		return 0, false
	}
	if j < len(b) && b[j] == '.' {
		j++
		if j >= len(b) || !isDigit(b[j]) {
			return 0, false
		}
		for j < len(b) && isDigit(b[j]) {
			j++
		}
	}
	if j < len(b) && (b[j] == 'e' || b[j] == 'E') {
		j++
		if j < len(b) && (b[j] == '+' || b[j] == '-') {
			j++
		}
		if j >= len(b) || !isDigit(b[j]) {
			return 0, false
		}
		for j < len(b) && isDigit(b[j]) {
			j++
		}
	}
	return j, true
}

func (s *scanner) literal(i int, word string) (int, bool) {
	if len(s.b)-i < len(word) || string(s.b[i:i+len(word)]) != word {
		return 0, false
	}
	return i + len(word), true
}

// key scans `"name" :` from i and returns the index after the colon.
func (s *scanner) key(i int) (int, bool) {
	if i >= len(s.b) || s.b[i] != '"' {
		return 0, false
	}
	end, _, ok := s.str(i)
	if !ok {
		return 0, false
	}
	i = s.space(end)
	if i >= len(s.b) || s.b[i] != ':' {
		return 0, false
	}
	return i + 1, true
}

// value scans one JSON value starting at or after whitespace at i and
// returns the index after it.
func (s *scanner) value(i int) (int, bool) {
	end, ok, stack := s.nested(i, s.stack[:0])
	s.stack = stack[:0]
	return end, ok
}

// nested is value with its container stack passed in and handed back (so
// the stack's storage is reused across values).
func (s *scanner) nested(i int, stack []byte) (int, bool, []byte) {
	var ok bool
	for {
		i = s.space(i)
		if i >= len(s.b) {
			return 0, false, stack
		}
		switch s.b[i] {
		case '{':
			i = s.space(i + 1)
			if i < len(s.b) && s.b[i] == '}' {
				i++
				break
			}
			if i, ok = s.key(i); !ok {
				return 0, false, stack
			}
			stack = append(stack, '{')
			continue
		case '[':
			i = s.space(i + 1)
			if i < len(s.b) && s.b[i] == ']' {
				i++
				break
			}
			stack = append(stack, '[')
			continue
		case '"':
			start := i
			if i, _, ok = s.str(i); !ok {
				return 0, false, stack
			}
			// Not right after an array's '[': the scan there peeked for
			// ']' (an empty array), which a resume at the checkpoint
			// would not do.
			if s.memo.marking && i-start >= memoLongString && !s.ws && s.b[start-1] != '[' {
				s.markAt(start, stack)
			}
		case 't':
			if i, ok = s.literal(i, "true"); !ok {
				return 0, false, stack
			}
		case 'f':
			if i, ok = s.literal(i, "false"); !ok {
				return 0, false, stack
			}
		case 'n':
			if i, ok = s.literal(i, "null"); !ok {
				return 0, false, stack
			}
		default:
			if i, ok = s.num(i); !ok {
				return 0, false, stack
			}
		}
		// A value ended: close finished containers, or move to the next
		// element or member.
		for {
			if len(stack) == 0 {
				return i, true, stack
			}
			i = s.space(i)
			if i >= len(s.b) {
				return 0, false, stack
			}
			top, c := stack[len(stack)-1], s.b[i]
			if c == ',' {
				i = s.space(i + 1)
				if top == '{' {
					if i, ok = s.key(i); !ok {
						return 0, false, stack
					}
				}
				break
			}
			if top == '{' && c == '}' || top == '[' && c == ']' {
				i++
				stack = stack[:len(stack)-1]
				continue
			}
			return 0, false, stack
		}
	}
}

// member is one top-level member of a record object: the key's span
// (quotes included) and the value's span. It holds no pointer (an escaped
// key is decoded again when asked for, which is rare), so appending one
// costs no write barrier while a GC runs, and it is small to copy.
type member struct {
	ks, ke, vs, ve int
	slot           int8 // fieldSlot of the key
	esc            bool // the key holds escapes
}

// object scans the object at b[i] == '{', appending its members to ms.
func (s *scanner) object(i int, ms []member) (int, []member, bool) {
	i = s.space(i + 1)
	if i < len(s.b) && s.b[i] == '}' {
		return i + 1, ms, true
	}
	for {
		if i >= len(s.b) || s.b[i] != '"' {
			return 0, ms, false
		}
		ke, esc, ok := s.str(i)
		if !ok {
			return 0, ms, false
		}
		ks, slot := i, 0
		if esc {
			slot = fieldSlot(decodeString(s.b[i:ke]))
		} else {
			slot = fieldSlotBytes(s.b[i+1 : ke-1])
		}
		i = s.space(ke)
		if i >= len(s.b) || s.b[i] != ':' {
			return 0, ms, false
		}
		vs := s.space(i + 1)
		ve, ok := s.scalarOrValue(vs)
		if !ok {
			return 0, ms, false
		}
		// The fields are stored into the list in place: a member built on
		// the stack and copied in is read back by wide loads that each
		// span several of its just-written fields, which the CPU cannot
		// forward from its store buffer, so every copy stalled.
		ms = append(ms, member{})
		m := &ms[len(ms)-1]
		m.ks, m.ke, m.vs, m.ve = ks, ke, vs, ve
		m.slot, m.esc = int8(slot), esc
		i = s.space(ve)
		if i >= len(s.b) {
			return 0, ms, false
		}
		switch s.b[i] {
		case ',':
			i = s.space(i + 1)
		case '}':
			return i + 1, ms, true
		default:
			return 0, ms, false
		}
	}
}

// lastMember returns the value span of the last member named name (JSON.parse
// keeps the last duplicate) of the object at b[i] == '{', an object the
// scanner has already accepted: its values are skipped, not checked again.
func (s *scanner) lastMember(i int, name string) (vs, ve int, found bool) {
	b := s.b
	for i = s.space(i + 1); b[i] != '}'; {
		ke, esc, _ := s.str(i)
		var named bool
		if esc {
			named = decodeString(b[i:ke]) == name
		} else {
			named = string(b[i+1:ke-1]) == name
		}
		i = s.space(s.space(ke) + 1) // past the colon
		end := s.skip(i)
		if named {
			vs, ve, found = i, end, true
		}
		if i = s.space(end); b[i] == ',' {
			i = s.space(i + 1)
		}
	}
	return vs, ve, found
}

// skip returns the end of the value at i, one the scanner has already
// accepted: strings are stepped over whole, containers by counting their
// brackets outside strings, and a number or literal ends at the first
// byte that cannot be in one.
func (s *scanner) skip(i int) int {
	b := s.b
	depth := 0
	for {
		switch b[i] {
		case '"':
			i, _, _ = s.str(i)
		case '{', '[':
			depth++
			i++
		case '}', ']':
			depth--
			i++
		default:
			i++
			if depth == 0 {
				for i < len(b) && inScalar(b[i]) {
					i++
				}
			}
		}
		if depth == 0 {
			return i
		}
	}
}

// inScalar reports the bytes a number or literal may hold.
func inScalar(c byte) bool {
	return isDigit(c) || c >= 'a' && c <= 'z' || c == '-' || c == '+' || c == '.' || c == 'E'
}

// scalarOrValue is value with a direct path for strings and numbers, the
// bulk of a record's members, and objects through the memo.
func (s *scanner) scalarOrValue(i int) (int, bool) {
	if i < len(s.b) {
		switch c := s.b[i]; {
		case c == '"':
			end, _, ok := s.str(i)
			return end, ok
		case c >= '0' && c <= '9' || c == '-':
			return s.num(i)
		case c == '{' && !s.noMemo:
			return s.memoValue(i)
		}
	}
	return s.value(i)
}

// memoValue is value of the object at i: resumed at the memo's checkpoint
// when the object starts with its prefix, else scanned whole, marking a
// new checkpoint. A checkpoint is taken only while no whitespace was
// skipped (so the prefix holds none, and resuming past it leaves ws as a
// scan of it would); the scan accepted every byte before it, so it holds
// even when the value fails later.
func (s *scanner) memoValue(i int) (int, bool) {
	m := &s.memo
	if n := len(m.prefix); n > 0 && len(s.b)-i > n && string(s.b[i:i+n]) == string(m.prefix) {
		end, ok, stack := s.nested(i+n, append(s.stack[:0], m.stack...))
		s.stack = stack[:0]
		return end, ok
	}
	m.marking, m.mark = !s.ws, -1
	end, ok, stack := s.nested(i, s.stack[:0])
	s.stack = stack[:0]
	m.marking = false
	if m.mark >= 0 {
		m.prefix = append(m.prefix[:0], s.b[i:m.mark]...)
		m.stack = append(m.stack[:0], m.markStack...)
	}
	return end, ok
}

// markAt notes the checkpoint: the string value at i, inside stack.
func (s *scanner) markAt(i int, stack []byte) {
	m := &s.memo
	m.marking, m.mark = false, i
	m.markStack = append(m.markStack[:0], stack...)
}
