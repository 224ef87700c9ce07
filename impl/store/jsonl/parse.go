package jsonl

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/frameproof/frameproof/impl/pi"
	"github.com/frameproof/frameproof/impl/store"
)

// The replay of one line follows pi's JsonlStorage.open exactly
// (session/jsonl/storage.ts): JSON.parse of the whole line, then
// parseCommittedWrite of each record in order, then validateCommittedWrites
// of the transaction (commit.ts), then applyValidated record by record
// (in-memory-storage-state.ts), which builds each new value or list address
// with values.ts value()/list() and so throws pi's address TypeErrors. The
// first failure in that order is the line's cause.
//
// parseCommittedWrite checks only the record shape, seq, kind, op and an
// entry's timestamp: ids, parent ids, namespaces, keys and values may be
// anything JSON holds, and a missing one is undefined. Options.Strict adds
// frameproof's own checks on top (lineParser.strict).

// pi's replay causes (storage.ts parseTransaction / parseCommittedWrite).
var (
	errNotJSON  = errors.New("Invalid JSONL transaction: not valid JSON")
	errTxWrite  = errors.New("Invalid JSONL transaction write")
	errWriteSeq = errors.New("Invalid JSONL write seq")
	errEntryTS  = errors.New("Invalid JSONL entry timestamp")
)

// record is one top-level element of a line.
type record struct {
	start, end int
	object     bool
	m0, m1     int // its members are lineParser.members[m0:m1]
}

// addrCheck is what applyValidated needs to build a value or list address
// the way pi does: the indexes (in lineParser.members) of the raw namespace
// and key members, -1 when undefined.
// usage is what addUsage throws for a usage row (usage.go).
type addrCheck struct {
	ns, key int
	usage   error
}

// lineParser parses lines into committed writes, reusing its buffers; the
// returned slices are valid until the next call. Values and entry rows alias
// the line's bytes (the file buffer Open owns) unless they need compacting.
type lineParser struct {
	sc      scanner
	strict  bool
	records []record
	members []member
	writes  []store.CommittedWrite
	sizes   []int64
	addrs   []addrCheck
	entries []store.Entry
	usage   []store.UsageRow
	names   [512]string  // intern's cache of namespaces and keys
	slots   [nFields]int // the current record's indexed members
	// kinds[i] is record i's entry kind when known[i] (its row was copied
	// from a compact line, so KindOf of it is its type and customType
	// members as they stand in the line); rowCopied is row's last answer.
	kinds     []store.EntryKind
	known     []bool
	rowCopied bool
	// lastID is the identity of the entry parsed last, and lastIDLit a
	// copy of its id's string literal (nil when none is kept).
	lastID    string
	lastIDLit []byte
	// parents and rowArena are slabs that entries' parent ids and copied
	// rows are cut from, so that an entry costs no allocation of its own
	// for either: a replay holds every entry for the store's life, and a
	// slab lives exactly as long as its last entry.
	parents  []string
	rowArena []byte
	// shareRows lets row cut an entry's or usage row's row out of the
	// line itself, overwriting the commas around it with braces, when the
	// members it keeps are one run. Only load sets it, for a file
	// buffer it owns and will not write back (no torn tail to republish);
	// nothing reads a line's bytes again after it was parsed, except
	// through the values and rows cut from it, and appendShape's copy of
	// a list append's (which no row is).
	shareRows bool
	// left is how many bytes of the file follow the line being replayed;
	// reserved is set once a line of entries sized the state's id map.
	left     int
	reserved bool
}

// parentSlab is how many parent ids one slab holds; rowArenaBytes the
// least bytes one row arena holds.
const (
	parentSlab    = 512
	rowArenaBytes = 64 << 10
)

// newParent returns a pointer to a copy of id, cut from a slab.
func (p *lineParser) newParent(id string) *string {
	if len(p.parents) == cap(p.parents) {
		p.parents = make([]string, 0, parentSlab)
	}
	p.parents = append(p.parents, id)
	return &p.parents[len(p.parents)-1]
}

// rowSpace returns an empty slice with room for n bytes in the row arena;
// takeRow then claims what was written into it.
func (p *lineParser) rowSpace(n int) []byte {
	if cap(p.rowArena)-len(p.rowArena) < n {
		p.rowArena = make([]byte, 0, max(n, rowArenaBytes))
	}
	return p.rowArena[len(p.rowArena):len(p.rowArena)]
}

// takeRow claims row, built by appending to rowSpace's slice, from the
// arena, capped so that an append to the row can never write into the
// next one. A row that outgrew its space (never: a row is shorter than its
// record) was reallocated and claims nothing.
func (p *lineParser) takeRow(row []byte) []byte {
	free := p.rowArena[len(p.rowArena):cap(p.rowArena)]
	if len(row) > 0 && len(row) <= len(free) && &row[0] == &free[0] {
		p.rowArena = p.rowArena[:len(p.rowArena)+len(row)]
	}
	return row[:len(row):len(row)]
}

// parse decodes one complete line (pi's parseTransaction).
func (p *lineParser) parse(line []byte) ([]store.CommittedWrite, []int64, error) {
	if !p.scan(line) {
		return nil, nil, errNotJSON
	}
	return p.decode()
}

// decode is parse of the line scanned last (scan or scanRest).
func (p *lineParser) decode() ([]store.CommittedWrite, []int64, error) {
	n := len(p.records)
	p.writes = grow(p.writes, n)
	p.sizes = grow(p.sizes, n)
	p.addrs = grow(p.addrs, n)
	p.kinds = grow(p.kinds, n)
	p.known = grow(p.known, n)
	clear(p.known)
	p.entries = p.entries[:0]
	p.usage = p.usage[:0]
	for i, r := range p.records {
		if err := p.record(r, i, &p.writes[i]); err != nil {
			return nil, nil, err
		}
		p.sizes[i] = int64(r.end-r.start) + 1
	}
	return p.writes, p.sizes, nil
}

func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// scan checks the line's syntax and splits it into records: the elements of
// a top-level array, or the single top-level value.
func (p *lineParser) scan(line []byte) bool {
	p.sc.reset(line)
	end, ok := p.top()
	return ok && p.sc.space(end) == len(line)
}

// scanRest is scan of the line rest starts with, found by the scan itself:
// the scanner walks every byte of the line anyway, so finding its newline
// first (bytes.IndexByte) was a second pass over the file. It returns the
// line's length, having left p as scan of the line leaves it, or false
// when the line is not one scan accepts or is not valid UTF-8: the caller
// then takes the line apart the long way, which finds the same failure
// (or decodes the text as node does first).
func (p *lineParser) scanRest(rest []byte) (int, bool) {
	s := &p.sc
	s.reset(rest)
	s.lines = true // a newline ends the scan: nothing past the line is read
	end, ok := p.top()
	if !ok {
		return 0, false
	}
	n := s.space(end)
	if n >= len(rest) || rest[n] != '\n' || !utf8.Valid(rest[:n]) {
		return 0, false
	}
	s.b, s.lines = rest[:n], false
	return n, true
}

// top scans the top-level value of the scanner's input into records and
// returns the index after it.
func (p *lineParser) top() (int, bool) {
	s := &p.sc
	b := s.b
	p.records = p.records[:0]
	p.members = p.members[:0]
	i := s.space(0)
	var ok bool
	if i < len(b) && b[i] == '[' {
		i = s.space(i + 1)
		if i < len(b) && b[i] == ']' {
			return i + 1, true
		}
		for {
			if i, ok = p.element(i); !ok {
				return 0, false
			}
			i = s.space(i)
			if i < len(b) && b[i] == ',' {
				i = s.space(i + 1)
				continue
			}
			if i < len(b) && b[i] == ']' {
				return i + 1, true
			}
			return 0, false
		}
	}
	return p.element(i)
}

func (p *lineParser) element(i int) (int, bool) {
	s := &p.sc
	if i < len(s.b) && s.b[i] == '{' {
		m0 := len(p.members)
		end, ms, ok := s.object(i, p.members)
		p.members = ms
		p.records = append(p.records, record{start: i, end: end, object: true, m0: m0, m1: len(ms)})
		return end, ok
	}
	end, ok := s.value(i)
	p.records = append(p.records, record{start: i, end: end})
	return end, ok
}

// The members pi's replay reads, by slot.
const (
	fSeq = iota
	fKind
	fOp
	fTimestamp
	fID
	fParentID
	fNamespace
	fKey
	fValue
	fType       // read for the entry's kind (store.KindOf), not by pi's replay
	fCustomType // likewise
	nFields
)

// fieldSlotBytes is fieldSlot without converting name to a string; it
// dispatches on the length first, so most keys cost one comparison.
func fieldSlotBytes(name []byte) int {
	switch len(name) {
	case 2:
		switch string(name) {
		case "op":
			return fOp
		case "id":
			return fID
		}
	case 3:
		switch string(name) {
		case "seq":
			return fSeq
		case "key":
			return fKey
		}
	case 4:
		switch string(name) {
		case "kind":
			return fKind
		case "type":
			return fType
		}
	case 5:
		if string(name) == "value" {
			return fValue
		}
	case 8:
		if string(name) == "parentId" {
			return fParentID
		}
	case 9:
		switch string(name) {
		case "timestamp":
			return fTimestamp
		case "namespace":
			return fNamespace
		}
	case 10:
		if string(name) == "customType" {
			return fCustomType
		}
	}
	return -1
}

func fieldSlot(name string) int {
	switch name {
	case "seq":
		return fSeq
	case "kind":
		return fKind
	case "op":
		return fOp
	case "timestamp":
		return fTimestamp
	case "id":
		return fID
	case "parentId":
		return fParentID
	case "namespace":
		return fNamespace
	case "key":
		return fKey
	case "value":
		return fValue
	case "type":
		return fType
	case "customType":
		return fCustomType
	}
	return -1
}

// index fills p.slots with the record's members that pi reads, in one pass;
// the last duplicate wins, as in JSON.parse.
func (p *lineParser) index(r record) {
	for i := range p.slots {
		p.slots[i] = -1
	}
	for j := r.m0; j < r.m1; j++ {
		if slot := p.members[j].slot; slot >= 0 {
			p.slots[slot] = j
		}
	}
}

// get returns the indexed member in slot f.
func (p *lineParser) get(f int) (member, bool) {
	if j := p.slots[f]; j >= 0 {
		return p.members[j], true
	}
	return member{}, false
}

// find returns the record's member named name; the last one wins, as in
// JSON.parse.
func (p *lineParser) find(r record, name string) (member, bool) {
	for j := r.m1 - 1; j >= r.m0; j-- {
		if p.keyIs(p.members[j], name) {
			return p.members[j], true
		}
	}
	return member{}, false
}

func (p *lineParser) keyIs(m member, name string) bool {
	if m.esc {
		return decodeString(p.sc.b[m.ks:m.ke]) == name
	}
	return string(p.sc.b[m.ks+1:m.ke-1]) == name
}

func (p *lineParser) keyText(m member) string {
	if m.esc {
		return decodeString(p.sc.b[m.ks:m.ke])
	}
	return string(p.sc.b[m.ks+1 : m.ke-1])
}

// raw is the member's value bytes, capped so that a caller appending to a
// stored value can never write into the file buffer behind it.
func (p *lineParser) raw(m member) []byte { return p.sc.b[m.vs:m.ve:m.ve] }

// record is pi's parseCommittedWrite for one record, plus the strict checks
// when enabled.
func (p *lineParser) record(r record, index int, out *store.CommittedWrite) error {
	if !r.object {
		return errTxWrite
	}
	p.index(r)
	seqM, ok := p.get(fSeq)
	seq, safe := safeIntSpan(p.raw(seqM), 1)
	if !ok || !safe {
		return errWriteSeq
	}
	kindM, hasKind := p.get(fKind)
	kind, isString := p.stringValue(kindM, hasKind)
	*out = store.CommittedWrite{Seq: seq}
	if !isString {
		return fmt.Errorf("Invalid JSONL write kind: %s", p.jsString(kindM, hasKind))
	}
	var err error
	switch kind {
	case "entry":
		err = p.entry(r, index, out)
	case "usage":
		err = p.usageRow(r, out)
		p.addrs[index].usage = p.usageApplyError(r)
	case "value", "list":
		err = p.valueOrList(store.WriteKind(kind), index, out)
	default:
		return fmt.Errorf("Invalid JSONL write kind: %s", kind)
	}
	if err == nil && p.strict {
		err = p.strictCheck(r, out)
	}
	return err
}

func (p *lineParser) entry(r record, index int, out *store.CommittedWrite) error {
	tsM, ok := p.get(fTimestamp)
	ts, safe := safeIntSpan(p.raw(tsM), 0)
	if !ok || !safe {
		return errEntryTS
	}
	out.Timestamp = ts
	idM, hasID := p.get(fID)
	e := store.Entry{ID: p.identity(idM, hasID, out.Seq, "id")}
	if pm, present := p.get(fParentID); !present || string(p.raw(pm)) != "null" {
		var parent string
		if raw := p.raw(pm); present && p.lastIDLit != nil && string(raw) == string(p.lastIDLit) {
			// the entry parsed last (a branch grows at its tip): the same
			// literal is the same identity, and its string is shared
			parent = p.lastID
		} else {
			parent = p.identity(pm, present, out.Seq, "parentId")
		}
		e.ParentID = p.newParent(parent)
	}
	if hasID && p.raw(idM)[0] == '"' {
		// a copy: the line's buffer may be reused
		p.lastID, p.lastIDLit = e.ID, append(p.lastIDLit[:0], p.raw(idM)...)
	} else {
		p.lastIDLit = nil
	}
	e.Raw = p.row(r, "kind", "seq", "timestamp")
	if p.rowCopied {
		// the row's members are the line's, unescaped and unrepeated
		// (needsJSOrder): KindOf's walk would find these
		var k store.EntryKind
		if m, ok := p.get(fType); ok {
			k.Type = store.InternType(p.raw(m))
		}
		if m, ok := p.get(fCustomType); ok {
			k.CustomType = string(p.raw(m))
		}
		p.kinds[index], p.known[index] = k, true
	}
	p.entries = append(p.entries, e)
	out.Write = store.Write{Kind: store.WriteEntry, Entry: &p.entries[len(p.entries)-1]}
	return nil
}

func (p *lineParser) usageRow(r record, out *store.CommittedWrite) error {
	idM, hasID := p.get(fID)
	p.usage = append(p.usage, store.UsageRow{ID: p.identity(idM, hasID, out.Seq, "id"), Raw: p.row(r, "kind", "seq")})
	out.Write = store.Write{Kind: store.WriteUsage, Usage: &p.usage[len(p.usage)-1]}
	return nil
}

func (p *lineParser) valueOrList(kind store.WriteKind, index int, out *store.CommittedWrite) error {
	opM, hasOp := p.get(fOp)
	op, isString := p.stringValue(opM, hasOp)
	valueOp := store.OpSet
	if kind == store.WriteList {
		valueOp = store.OpAppend
	}
	if !isString || (op != string(valueOp) && op != "delete") {
		return fmt.Errorf("Invalid JSONL %s operation: %s", kind, p.jsString(opM, hasOp))
	}
	a := &p.addrs[index]
	a.ns, a.key = p.slots[fNamespace], p.slots[fKey]
	ns, hasNS := p.get(fNamespace)
	key, hasKey := p.get(fKey)
	// pi keys its maps by `${namespace}\u0000${key}`, i.e. String() of each.
	w := &out.Write
	w.Kind, w.Op = kind, store.WriteOp(op)
	w.Namespace = p.intern(ns, hasNS)
	w.Key = p.intern(key, hasKey)
	if op != "delete" {
		if vm, ok := p.get(fValue); ok {
			w.Value = p.compact(p.raw(vm))
		}
	}
	return nil
}

// row returns the record's object without the members pi's commitWrite adds
// (JS `const { kind, ...entry } = write` keeps seq and timestamp in memory,
// but the Go row excludes them, as Prepare's rows do). Duplicate keys keep
// the last value at the first position and integer-like keys move first,
// as JSON.parse builds the object.
func (p *lineParser) row(r record, drop ...string) json.RawMessage {
	ms := p.members[r.m0:r.m1]
	p.rowCopied = false
	if p.sc.ws || p.needsJSOrder(ms) {
		return encodeObject(nil, without(p.objectFields(ms), drop...))
	}
	// No key is escaped (needsJSOrder), so a member is dropped exactly when
	// its slot is one of drop's. In a line without whitespace the kept
	// members between two dropped ones are one run of bytes, commas
	// included, copied at once.
	var dropped uint16
	for _, d := range drop {
		slot := fieldSlot(d)
		if slot < 0 { // no caller drops a name without a slot; the general path would
			return encodeObject(nil, without(p.objectFields(ms), drop...))
		}
		dropped |= 1 << slot
	}
	b := p.sc.b
	if p.shareRows {
		if a, c, ok := keptRun(ms, dropped); ok {
			// The row is the kept run in place, between the record's
			// braces or the commas next to the run made braces: no copy.
			// (The line has no whitespace, so a member's neighbours are
			// its commas or braces.)
			p.rowCopied = true
			start, end := ms[a].ks-1, ms[c-1].ve
			b[start], b[end] = '{', '}'
			return b[start : end+1 : end+1]
		}
	}
	out := append(p.rowSpace(r.end-r.start), '{')
	run := -1 // the first member of the run being kept
	for j, m := range ms {
		if m.slot < 0 || dropped&(1<<m.slot) == 0 {
			if run < 0 {
				run = j
			}
			continue
		}
		if run >= 0 {
			out = appendRun(out, b[ms[run].ks:ms[j-1].ve])
			run = -1
		}
	}
	if run >= 0 {
		out = appendRun(out, b[ms[run].ks:ms[len(ms)-1].ve])
	}
	p.rowCopied = true
	return p.takeRow(append(out, '}'))
}

// keptRun finds the members of ms whose slots are not in dropped as one
// run ms[a:c], a nonempty one; ok is false when they are not one run.
func keptRun(ms []member, dropped uint16) (a, c int, ok bool) {
	isDropped := func(m member) bool { return m.slot >= 0 && dropped&(1<<m.slot) != 0 }
	for a < len(ms) && isDropped(ms[a]) {
		a++
	}
	for c = a; c < len(ms) && !isDropped(ms[c]); c++ {
	}
	for _, m := range ms[c:] {
		if !isDropped(m) {
			return 0, 0, false
		}
	}
	return a, c, c > a
}

// appendRun appends a run of members to an object being built after '{'.
func appendRun(out, run []byte) []byte {
	if len(out) > 1 {
		out = append(out, ',')
	}
	return append(out, run...)
}

// objectFields returns the members as JSON.parse's object holds them:
// duplicate keys keep the last value at the first position, integer-like
// keys come first in ascending order, values compacted.
func (p *lineParser) objectFields(ms []member) []store.ObjectField {
	var fields []store.ObjectField
	index := map[string]int{}
	for _, m := range ms {
		k := p.keyText(m)
		v := p.compact(p.raw(m))
		if at, dup := index[k]; dup {
			fields[at].Value = v
			continue
		}
		index[k] = len(fields)
		fields = append(fields, store.ObjectField{Key: k, Value: v})
	}
	sort.SliceStable(fields, func(i, j int) bool {
		ii, ji := arrayIndex(fields[i].Key), arrayIndex(fields[j].Key)
		return ii >= 0 && (ji < 0 || ii < ji)
	})
	return fields
}

// parseObjectFields is JSON.parse(line) for a header: valid reports the
// syntax, isObject whether the value is a plain object (pi's isRecord).
func parseObjectFields(line []byte) (fields []store.ObjectField, isObject, valid bool) {
	var p lineParser
	s := &p.sc
	s.reset(line)
	i := s.space(0)
	if i < len(line) && line[i] == '{' {
		end, ms, ok := s.object(i, nil)
		if !ok || s.space(end) != len(line) {
			return nil, false, false
		}
		p.members = ms
		return p.objectFields(ms), true, true
	}
	end, ok := s.value(i)
	return nil, false, ok && s.space(end) == len(line)
}

// needsJSOrder reports escaped, duplicate or integer-like keys, which
// JSON.parse would merge or move (an escaped one is left to the general
// path). Unescaped keys are alike exactly when their slots are, for the
// names pi reads, so only the other keys are compared with each other.
func (p *lineParser) needsJSOrder(ms []member) bool {
	b := p.sc.b
	var slots uint16
	var others map[string]struct{} // the other keys so far, past store.PairwiseKeys members
	for i, m := range ms {
		if m.esc || isDigit(b[m.ks+1]) {
			return true
		}
		if m.slot >= 0 {
			if slots&(1<<m.slot) != 0 {
				return true
			}
			slots |= 1 << m.slot
			continue
		}
		key := b[m.ks:m.ke]
		// Past store.PairwiseKeys members, a set, so that many members cost
		// linear time. Not store.KeySet: the keys are compared as the
		// line's bytes, with no string made for them on every open.
		if len(ms) > store.PairwiseKeys {
			if others == nil {
				others = make(map[string]struct{}, len(ms))
			}
			if _, dup := others[string(key)]; dup {
				return true
			}
			others[string(key)] = struct{}{}
			continue
		}
		for _, o := range ms[:i] {
			if o.slot < 0 && o.ke-o.ks == len(key) && string(b[o.ks:o.ke]) == string(key) {
				return true
			}
		}
	}
	return false
}

// arrayIndex is the key's array index, or -1 when JS orders it as a string.
func arrayIndex(key string) int64 {
	if !pi.IsArrayIndex(key) {
		return -1
	}
	n, _ := strconv.ParseUint(key, 10, 64) // IsArrayIndex parsed it already
	return int64(n)
}

// compact returns raw without insignificant whitespace (aliasing raw when
// the line had none).
func (p *lineParser) compact(raw []byte) json.RawMessage {
	if !p.sc.ws {
		return raw
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return raw // unreachable: the scanner accepted raw
	}
	return buf.Bytes()
}

// stringValue decodes a present string member. Common words come back
// without allocating.
func (p *lineParser) stringValue(m member, present bool) (string, bool) {
	if !present {
		return "", false
	}
	raw := p.raw(m)
	if raw[0] != '"' {
		return "", false
	}
	switch string(raw) {
	case `"entry"`:
		return "entry", true
	case `"usage"`:
		return "usage", true
	case `"value"`:
		return "value", true
	case `"list"`:
		return "list", true
	case `"set"`:
		return "set", true
	case `"append"`:
		return "append", true
	case `"delete"`:
		return "delete", true
	}
	return decodeString(raw), true
}

// intern returns String() of an address member, sharing Go strings through
// a small direct-mapped cache: a session repeats few namespaces, and runs of
// frames repeat their list's key. A bounded cache never grows with the file
// (a map of every key would, and its misses cost more than the strings).
func (p *lineParser) intern(m member, present bool) string {
	if !present {
		return "undefined"
	}
	raw := p.raw(m)
	if raw[0] != '"' {
		return p.jsString(m, present)
	}
	inner := raw[1 : len(raw)-1]
	slot := &p.names[internSlot(inner)]
	if string(inner) == *slot {
		return *slot
	}
	if bytes.IndexByte(inner, '\\') >= 0 || !utf8.Valid(inner) {
		return p.jsString(m, present)
	}
	*slot = string(inner)
	return *slot
}

func internSlot(b []byte) int {
	h := uint(len(b)) * 0x9e37
	if len(b) > 0 {
		h += uint(b[0])*31 + uint(b[len(b)-1])*131 + uint(b[len(b)/2])*7
	}
	return int(h % uint(len(lineParser{}.names)))
}

// decodeString decodes a scanned string literal as JSON.parse does (lone
// surrogates kept as WTF-8, invalid UTF-8 as U+FFFD, as node's text read).
func decodeString(raw []byte) string {
	inner := raw[1 : len(raw)-1]
	if bytes.IndexByte(inner, '\\') < 0 {
		if utf8.Valid(inner) {
			return string(inner)
		}
		return store.NodeText(inner)
	}
	v, err := pi.ParseJSON(store.NodeText(raw))
	if err != nil {
		return string(inner) // unreachable: the scanner accepted raw
	}
	return v.Str()
}

// jsString is JS String(value) of a member (String(undefined) when absent).
func (p *lineParser) jsString(m member, present bool) string {
	if !present {
		return "undefined"
	}
	raw := p.raw(m)
	switch raw[0] {
	case '"':
		return decodeString(raw)
	case 't', 'f', 'n':
		return string(raw)
	case '{':
		return "[object Object]"
	}
	v, err := pi.ParseJSON(store.NodeText(raw))
	if err != nil {
		return string(raw)
	}
	return pi.JSString(v)
}

// safeIntSpan is Number.isSafeInteger(JSON.parse(raw)) && value >= minimum.
func safeIntSpan(raw []byte, minimum int64) (int64, bool) {
	if len(raw) == 0 {
		return 0, false
	}
	if len(raw) <= 15 && isDigit(raw[0]) && (raw[0] != '0' || len(raw) == 1) {
		var n int64
		for _, c := range raw {
			if !isDigit(c) {
				return safeInt(raw, minimum) // a fraction or exponent
			}
			n = n*10 + int64(c-'0')
		}
		return n, n >= minimum
	}
	return safeInt(raw, minimum)
}

// ---- identities ----

// Entry and usage ids are JS Map keys in pi: any JSON value, compared with
// SameValueZero, so 1 and "1" differ and two equal-looking objects never
// match. A string id is itself. Any other id is encoded as 0xFF, a tag, a
// uniquifier, 0xFE and its String() for messages; a decoded JSON string
// never holds the byte 0xFF, so the encodings cannot meet a real id.
const (
	idMark = "\xff"
	idSep  = "\xfe"
)

func (p *lineParser) identity(m member, present bool, seq int64, field string) string {
	if !present {
		return idMark + "u" + idSep + "undefined"
	}
	raw := p.raw(m)
	switch raw[0] {
	case '"':
		return decodeString(raw)
	case 'n':
		return idMark + "z" + idSep + "null"
	case 't', 'f':
		return idMark + "b" + idSep + string(raw)
	case '{', '[':
		// Object identity: unique to this record's field.
		return idMark + "o" + strconv.FormatInt(seq, 10) + field + idSep + p.jsString(m, true)
	}
	return idMark + "n" + idSep + p.jsString(m, true)
}

// displayID is what pi's messages print for an identity (`${write.id}`).
func displayID(id string) string {
	if !strings.HasPrefix(id, idMark) {
		return id
	}
	if i := strings.Index(id, idSep); i >= 0 {
		return id[i+len(idSep):]
	}
	return id
}

// piCommitError rewrites validateCommittedWrites' messages to print ids as
// pi does.
func piCommitError(err error) error {
	var dup *store.DuplicateIDError
	var miss *store.MissingParentError
	switch {
	case errors.As(err, &dup):
		return &store.DuplicateIDError{ID: displayID(dup.ID)}
	case errors.As(err, &miss):
		return &store.MissingParentError{ParentID: displayID(miss.ParentID)}
	}
	return err
}

// ---- applyValidated's address checks ----

// addressError is what values.ts value()/list() throws for the raw
// namespace and key of a record (validateAddress; an undefined key defaults
// to ""). Strings and arrays have length and includes (an array's includes
// compares elements); other values have neither.
func (p *lineParser) addressError(a addrCheck) error {
	if a.ns < 0 {
		return errors.New("Cannot read properties of undefined (reading 'length')")
	}
	ns := p.raw(p.members[a.ns])
	switch {
	case ns[0] == 'n':
		return errors.New("Cannot read properties of null (reading 'length')")
	case ns[0] != '"' && ns[0] != '[':
		return errors.New("namespace.includes is not a function")
	case p.jsLength(ns) == 0:
		return store.ErrEmptyNamespace
	case p.includesNUL(ns):
		return store.ErrNamespaceNUL
	}
	if a.key < 0 {
		return nil
	}
	key := p.raw(p.members[a.key])
	switch {
	case key[0] == 'n':
		return errors.New("Cannot read properties of null (reading 'includes')")
	case key[0] != '"' && key[0] != '[':
		return errors.New("key.includes is not a function")
	case p.includesNUL(key):
		return store.ErrKeyNUL
	}
	return nil
}

// jsLength is .length of a string (UTF-16 units; only zero matters) or array.
func (p *lineParser) jsLength(raw []byte) int {
	if raw[0] == '"' {
		return len(raw) - 2
	}
	v, err := pi.ParseJSON(string(raw))
	if err != nil {
		return -1
	}
	return len(v.Array())
}

// includesNUL is .includes("\u0000") of a string or an array.
func (p *lineParser) includesNUL(raw []byte) bool {
	if raw[0] == '"' {
		return bytes.IndexByte(raw, '\\') >= 0 && strings.IndexByte(decodeString(raw), 0) >= 0
	}
	v, err := pi.ParseJSON(string(raw))
	if err != nil {
		return false
	}
	for _, e := range v.Array() {
		if e.Kind() == pi.String && e.Str() == "\x00" {
			return true
		}
	}
	return false
}

// ---- strict ----

// duplicateKey is the key (decoded) of the first member of ms whose key an
// earlier member has too, found in linear time (store.KeySet).
func (p *lineParser) duplicateKey(ms []member) (string, bool) {
	var seen store.KeySet
	for _, m := range ms {
		if k := p.keyText(m); seen.Add(k) {
			return k, true
		}
	}
	return "", false
}

// strictCheck applies frameproof's own record rules (Options.Strict): no
// duplicate keys, string ids and addresses, a parentId on every entry, a
// value on every set and append, pi's address rules on every value and list
// write (deletes included), and the shape checks Commit applies to caller
// writes, so that a file holds only what Commit could have written.
func (p *lineParser) strictCheck(r record, out *store.CommittedWrite) error {
	if k, dup := p.duplicateKey(p.members[r.m0:r.m1]); dup {
		return fmt.Errorf("%w: duplicate key %q", errTxWrite, k)
	}
	isString := func(name string) bool {
		m, ok := p.find(r, name)
		return ok && p.raw(m)[0] == '"'
	}
	switch out.Kind {
	case store.WriteEntry:
		if !isString("id") {
			return errors.New("Invalid JSONL entry id")
		}
		if pm, ok := p.find(r, "parentId"); !ok || (p.raw(pm)[0] != '"' && string(p.raw(pm)) != "null") {
			return errors.New("Invalid JSONL entry parentId")
		}
	case store.WriteUsage:
		if !isString("id") {
			return errors.New("Invalid JSONL usage id")
		}
	default:
		if !isString("namespace") || !isString("key") {
			return fmt.Errorf("Invalid JSONL %s address", out.Kind)
		}
		if err := store.ValidateAddress(out.Namespace, out.Key); err != nil {
			return fmt.Errorf("Invalid JSONL %s address: %w", out.Kind, err)
		}
		if _, ok := p.find(r, "value"); !ok && out.Op != store.OpDelete {
			return fmt.Errorf("Invalid JSONL %s value", out.Kind)
		}
	}
	norm, err := store.Prepare([]store.Write{out.Write}, out.Seq, out.Timestamp)
	if err != nil {
		return fmt.Errorf("Invalid JSONL %s record: %w", out.Kind, err)
	}
	*out = norm[0]
	return nil
}
