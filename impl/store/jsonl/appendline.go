package jsonl

import "github.com/frameproof/frameproof/impl/store"

// Most lines of a session are single frame appends to the list the line
// before appended to, byte for byte alike but for the seq and the value:
//
//	{"kind":"list","op":"append","seq":41,"namespace":"…","key":"…","value":{…}}
//
// appendShape is such a line learned from one the general path replayed:
// the bytes before the seq's number (head) and between it and the value
// (mid), and the write they decode to. A line that starts with head, then
// a number, then mid, then one JSON value and the closing brace, decodes
// to that write with its own seq and value: every other member is the same
// bytes, so decodes the same (the decoding is a function of the bytes),
// and neither can have a later duplicate that JSON.parse would keep.
type appendShape struct {
	head, mid []byte // alias the file buffer, as values do
	// writes holds the write, replayed in place (only its seq and value
	// change), so a line copies no pointers but the value's.
	writes [1]store.CommittedWrite
	key    liveKey // keyOf(writes[0])
	// vprefix is a value that match scanned, up to its last member's
	// value, when the value is an object without whitespace: any value that
	// starts with the same bytes leaves the scanner in the same state there
	// (expecting a value, inside one object), whatever line it is on, so
	// the scan resumes there (scanValue) and learn keeps it.
	vprefix []byte
	scratch []member // the members of a value scanned to relearn vprefix
	ok      bool
}

// learn records the line the general path just replayed as the shape,
// when its last record is a list append object whose last member is its
// value. Its seq member (the last one, which JSON.parse keeps) comes
// before the value then, and every other member is in head or mid. The
// record may close an array (a turn's intent line ends with the append
// that starts its frame list): a record decodes from its own members
// alone, so a line of its bytes alone decodes to the same write.
func (a *appendShape) learn(p *lineParser, line []byte) {
	a.ok = false
	if len(p.records) == 0 || p.strict {
		return
	}
	last := len(p.records) - 1 // p.slots are the last record's
	r, w := p.records[last], p.writes[last]
	if !r.object || w.Kind != store.WriteList || w.Op != store.OpAppend {
		return
	}
	seq, value := p.members[p.slots[fSeq]], p.members[r.m1-1]
	if value.slot != fValue {
		return
	}
	a.head, a.mid = line[r.start:seq.vs], line[seq.ve:value.vs]
	a.writes, a.key, a.ok = [1]store.CommittedWrite{w}, keyOf(&w), true
}

// scanValue is scanner.value at vs, resumed after vprefix when the value
// starts with it. An object value that does not is scanned member by
// member instead, and its prefix becomes vprefix: the value learn saw is
// often not the frames' (a turn's first append is its start frame), and
// the frames that follow are alike.
func (a *appendShape) scanValue(s *scanner, line []byte, vs int) (int, bool) {
	n := len(a.vprefix)
	if n > 0 && len(line)-vs >= n && string(line[vs:vs+n]) == string(a.vprefix) {
		end, ok, stack := s.nested(vs+n, append(s.stack[:0], '{'))
		s.stack = stack[:0]
		return end, ok
	}
	if vs >= len(line) || line[vs] != '{' {
		return s.value(vs)
	}
	end, ms, ok := s.object(vs, a.scratch[:0])
	a.scratch = ms
	if ok && !s.ws && len(ms) > 0 {
		a.vprefix = line[vs:ms[len(ms)-1].vs]
	}
	return end, ok
}

// mayMatch reports whether the line rest starts with may have the shape:
// when not, match of it is false (the head holds no newline, so a line
// starts with it exactly when rest does and the line is long enough).
func (a *appendShape) mayMatch(rest []byte) bool {
	return a.ok && len(rest) >= len(a.head) && string(rest[:len(a.head)]) == string(a.head)
}

// match reports whether line has the shape, and returns its seq and value,
// the value's syntax checked as JSON.parse checks it. A value holding
// insignificant whitespace is left to the general path, which compacts it.
func (a *appendShape) match(s *scanner, line []byte) (seq int64, value []byte, ok bool) {
	if !a.ok || len(line) < len(a.head)+len(a.mid)+2 || string(line[:len(a.head)]) != string(a.head) {
		return 0, nil, false
	}
	s.reset(line)
	end, ok := s.num(len(a.head))
	if !ok || len(line)-end < len(a.mid) || string(line[end:end+len(a.mid)]) != string(a.mid) {
		return 0, nil, false
	}
	if seq, ok = safeIntSpan(line[len(a.head):end], 1); !ok {
		return 0, nil, false
	}
	vs := end + len(a.mid)
	ve, ok := a.scanValue(s, line, vs)
	if !ok || ve != len(line)-1 || line[ve] != '}' || s.ws {
		return 0, nil, false
	}
	return seq, line[vs:ve:ve], true
}
