package store

import (
	"encoding/json"
	"fmt"
	"unicode/utf8"

	"github.com/frameproof/frameproof/impl/pi"
	"github.com/frameproof/frameproof/impl/store/internal/jsonstr"
)

// InsertEntry returns the write that inserts e.
func InsertEntry(e Entry) Write { return Write{Kind: WriteEntry, Entry: &e} }

// InsertUsage returns the write that inserts row.
func InsertUsage(row UsageRow) Write { return Write{Kind: WriteUsage, Usage: &row} }

// SetValue encodes v with EncodeJSON and returns the write that sets addr to it.
func SetValue[T any](addr ValueAddr[T], v T) (Write, error) {
	raw, err := EncodeJSON(v)
	if err != nil {
		return Write{}, err
	}
	return SetValueRaw(addr.Address, raw), nil
}

// SetValueRaw returns the write that sets addr to raw JSON.
func SetValueRaw(addr Address, raw json.RawMessage) Write {
	return Write{Kind: WriteValue, Op: OpSet, Namespace: addr.Namespace, Key: addr.Key, Value: raw}
}

// DeleteValue returns the write that deletes addr (absent is a no-op).
func DeleteValue[T any](addr ValueAddr[T]) Write { return DeleteValueRaw(addr.Address) }

// DeleteValueRaw is DeleteValue for an erased address.
func DeleteValueRaw(addr Address) Write {
	return Write{Kind: WriteValue, Op: OpDelete, Namespace: addr.Namespace, Key: addr.Key}
}

// AppendList encodes v with EncodeJSON and returns the write that appends it.
func AppendList[T any](addr ListAddr[T], v T) (Write, error) {
	raw, err := EncodeJSON(v)
	if err != nil {
		return Write{}, err
	}
	return AppendListRaw(addr.Address, raw), nil
}

// AppendListRaw returns the write that appends raw JSON to addr.
func AppendListRaw(addr Address, raw json.RawMessage) Write {
	return Write{Kind: WriteList, Op: OpAppend, Namespace: addr.Namespace, Key: addr.Key, Value: raw}
}

// DeleteList returns the write that removes every element of addr.
func DeleteList[T any](addr ListAddr[T]) Write { return DeleteListRaw(addr.Address) }

// DeleteListRaw is DeleteList for an erased address.
func DeleteListRaw(addr Address) Write {
	return Write{Kind: WriteList, Op: OpDelete, Namespace: addr.Namespace, Key: addr.Key}
}

// String describes w for error messages and traces, e.g. "value:set:ns/key".
func (w Write) String() string {
	switch w.Kind {
	case WriteEntry:
		if w.Entry != nil {
			return "entry:" + w.Entry.ID
		}
	case WriteUsage:
		if w.Usage != nil {
			return "usage:" + w.Usage.ID
		}
	}
	return fmt.Sprintf("%s:%s:%s/%s", w.Kind, w.Op, w.Namespace, w.Key)
}

// The record fields pi adds around an entry's own fields are reserved (an
// entry carrying them would be silently overwritten by the JS spread):
// kind, seq and timestamp; a usage row's are kind and seq. checkRowRaw
// looks them up in its switch over a row's keys.

// rowArena holds a transaction's entries and the compact copies of its
// rows, each kind in one allocation: a transaction's rows are stored
// together and live as long as the state, so one array each serves them
// where an allocation per row (two for an entry) cost more than the
// row's checks.
type rowArena struct {
	bytes   []byte
	entries []arenaEntry
	lastID  string // the id of the entry normalized last
}

// arenaEntry is an entry and its parent id, in one place.
type arenaEntry struct {
	entry  Entry
	parent string
}

// newRowArena sizes an arena for writes' entries and rows (a compact copy
// is never longer than its row). A transaction of one row is given none:
// its row and entry are allocated alone, as they were.
func newRowArena(writes []Write) rowArena {
	var rows, entries, size int
	for _, w := range writes {
		switch {
		case w.Kind == WriteEntry && w.Entry != nil:
			rows, entries, size = rows+1, entries+1, size+len(w.Entry.Raw)
		case w.Kind == WriteUsage && w.Usage != nil:
			rows, size = rows+1, size+len(w.Usage.Raw)
		}
	}
	if rows < 2 {
		return rowArena{}
	}
	return rowArena{bytes: make([]byte, 0, size), entries: make([]arenaEntry, 0, entries)}
}

// copyOf returns a copy of raw, cut from the arena when it has room.
func (a *rowArena) copyOf(raw []byte) json.RawMessage {
	if len(raw) > cap(a.bytes)-len(a.bytes) {
		return append(json.RawMessage(nil), raw...)
	}
	start := len(a.bytes)
	a.bytes = append(a.bytes, raw...)
	return a.bytes[start:len(a.bytes):len(a.bytes)] // capped: an append copies
}

// entry returns a new entry slot, from the arena when it has room.
func (a *rowArena) entry() *arenaEntry {
	if len(a.entries) == cap(a.entries) {
		return &arenaEntry{}
	}
	a.entries = a.entries[:len(a.entries)+1]
	return &a.entries[len(a.entries)-1]
}

// normalizeWrite checks w's shape and sets *out, which is zero, to a copy
// with compact JSON, and *kind to an entry's KindOf. It never looks at
// storage state; index is w's position for error messages. (An entry or
// usage row sets only the members it needs: a CommittedWrite is 120
// bytes, most of them pointers the collector would be told about.)
func normalizeWrite(index int, w *Write, out *CommittedWrite, kind *EntryKind, a *rowArena) error {
	fail := func(format string, args ...any) error {
		return fmt.Errorf("store: write %d (%s): %s", index, w.Kind, fmt.Sprintf(format, args...))
	}
	switch w.Kind {
	case WriteEntry:
		if w.Entry == nil {
			return fail("entry is missing")
		}
		raw, err := checkRowRaw(nodeBytes(w.Entry.Raw), w.Entry.ID, true, w.Entry.ParentID, kind, a)
		if err != nil {
			return fail("entry %q: %v", w.Entry.ID, err)
		}
		e := a.entry()
		e.entry = Entry{ID: w.Entry.ID, Raw: raw}
		if w.Entry.ParentID != nil {
			e.parent = *w.Entry.ParentID
			if e.parent == a.lastID {
				// the entry before's own string: a branch's parent is
				// then matched by pointer, in the commit's checks and its
				// apply (and at every commit of a Tx)
				e.parent = a.lastID
			}
			e.entry.ParentID = &e.parent
		}
		a.lastID = w.Entry.ID
		out.Kind, out.Entry = WriteEntry, &e.entry
		return nil
	case WriteUsage:
		if w.Usage == nil {
			return fail("usage row is missing")
		}
		raw, err := checkRowRaw(nodeBytes(w.Usage.Raw), w.Usage.ID, false, nil, nil, a)
		if err != nil {
			return fail("usage %q: %v", w.Usage.ID, err)
		}
		out.Kind, out.Usage = WriteUsage, &UsageRow{ID: w.Usage.ID, Raw: raw}
		return nil
	case WriteValue, WriteList:
		if err := ValidateAddress(w.Namespace, w.Key); err != nil {
			return err
		}
		withValue := OpSet
		if w.Kind == WriteList {
			withValue = OpAppend
		}
		switch w.Op {
		case withValue:
			v, err := compactJSON(nodeBytes(w.Value))
			if err != nil {
				return fail("%s %s/%s: value: %v", w.Op, w.Namespace, w.Key, err)
			}
			out.Write = Write{Kind: w.Kind, Op: w.Op, Namespace: w.Namespace, Key: w.Key, Value: v}
			return nil
		case OpDelete:
			out.Write = Write{Kind: w.Kind, Op: OpDelete, Namespace: w.Namespace, Key: w.Key}
			return nil
		default:
			return fail("invalid op %q", w.Op)
		}
	default:
		return fail("invalid write kind %q", w.Kind)
	}
}

// nodeBytes is raw as its bytes read once a JSONL file holds them (node
// decodes the file as UTF-8, NodeText): raw itself when it is UTF-8, which
// every row pi writes is (JSON.stringify escapes a lone surrogate). A row
// or value given as other bytes through the Go API is stored as a reopen
// will read it, so that live reads, a reopened file and every backend
// agree, rather than the raw bytes until the next open.
func nodeBytes(raw json.RawMessage) json.RawMessage {
	if utf8.Valid(raw) {
		return raw
	}
	return json.RawMessage(NodeText(raw))
}

// checkRowRaw validates an entry (whose parent id is parent) or usage row
// object and returns it compacted; for an entry, it sets *kind to the
// compacted object's KindOf. The members are looked at in one pass, the
// errors reported in the order of the checks one by one: each member's
// key (reserved, integer-like) and id, in order, then a missing id, then
// the parent.
func checkRowRaw(raw json.RawMessage, id string, entry bool, parent *string, kind *EntryKind, a *rowArena) (json.RawMessage, error) {
	var room [8]ObjectField // a row's members, without an allocation
	fields, compact, walked, err := rowFields(room[:0], raw, a)
	if err != nil {
		return nil, fmt.Errorf("raw: %v", err)
	}
	sawID := false
	parentAt, typeAt, customAt := -1, -1, -1 // keys are unique: one of each at most
	for i := range fields {
		f := &fields[i]
		switch f.Key {
		case "id":
			if !jsonStringIs(f.Value, id) {
				return nil, fmt.Errorf("raw id %s does not match ID %q", f.Value, id)
			}
			sawID = true
		case "parentId":
			parentAt = i
		case "type":
			typeAt = i
		case "customType":
			customAt = i
		case "kind", "seq": // reservedUsageKey, reservedEntryKey
			return nil, fmt.Errorf("raw has reserved key %q", f.Key)
		case "timestamp":
			if entry { // reservedEntryKey
				return nil, fmt.Errorf("raw has reserved key %q", f.Key)
			}
		default:
			if isArrayIndexKey(f.Key) {
				return nil, fmt.Errorf("raw has integer-like key %q, which JS would reorder", f.Key)
			}
		}
	}
	if !sawID {
		return nil, fmt.Errorf("raw has no id")
	}
	if entry {
		if parentAt < 0 {
			return nil, fmt.Errorf("raw has no parentId")
		}
		if err := checkParent(fields[parentAt].Value, parent); err != nil {
			return nil, err
		}
		if !walked {
			// the keys were unquoted; KindOf reads literals
			*kind = KindOf(compact)
			return compact, nil
		}
		// walked: raw was compact, its keys plain and unrepeated, so a
		// member's key is its literal's text, as KindOf matches them
		if typeAt >= 0 {
			kind.Type = internType(fields[typeAt].Value)
		}
		if customAt >= 0 {
			kind.CustomType = string(fields[customAt].Value)
		}
	}
	return compact, nil
}

// rowFields splits a row object into fields and returns a compact copy of
// it, and whether it was split by the one validating walk. A compact
// object (what writers commit) with plain, unrepeated keys is validated
// and split in one pass (splitRow); anything else goes through
// compactJSON and splitCompactObject, with their errors.
func rowFields(fields []ObjectField, raw json.RawMessage, a *rowArena) ([]ObjectField, json.RawMessage, bool, error) {
	if f, ok := splitRow(fields, raw); ok {
		// the values are raw's: read by the checks, not kept
		return f, a.copyOf(raw), true, nil
	}
	compact, err := compactJSON(raw)
	if err != nil {
		return nil, nil, false, err
	}
	fields, err = appendCompactObject(fields[:0], compact)
	return fields, compact, false, err
}

// jsonStringIs reports whether the JSON value v (valid, compact) decodes,
// as json.Unmarshal into a string, to s: a plain string (printable ASCII
// between its quotes, no escapes) is compared as it is, anything else
// decoded by JSUnquote.
func jsonStringIs(v []byte, s string) bool {
	if inner, ok := plainJSONString(v); ok {
		return string(inner) == s
	}
	got, ok := JSUnquote(v)
	return ok && got == s
}

// JSUnquote decodes a JSON string literal as node reads it from a file and
// JSON.parse decodes it, into impl/pi's WTF-8: bytes that are no UTF-8
// (a raw encoded surrogate included) are U+FFFD per NodeText, and a lone
// surrogate escape stays that code unit, where encoding/json would make
// it U+FFFD; so a row's id reads the same at commit and when its file is
// reopened. The served protocol reads a request's ids with it too.
func JSUnquote(lit []byte) (string, bool) {
	if inner, ok := plainJSONString(lit); ok {
		return string(inner), true // printable ASCII, no escapes: as it is
	}
	v, err := pi.ParseJSON(NodeText(lit))
	if err != nil || v.Kind() != pi.String {
		return "", false
	}
	return v.Str(), true
}

// plainJSONString is the text between v's quotes when v is a JSON string
// of printable ASCII without escapes: what json.Unmarshal decodes it to.
func plainJSONString(v []byte) ([]byte, bool) {
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
		return nil, false
	}
	if inner := v[1 : len(v)-1]; jsonstr.Printable(inner) {
		return inner, true
	}
	return nil, false
}

// checkParent checks an entry's parentId member v against its ParentID.
func checkParent(v []byte, parent *string) error {
	if inner, ok := plainJSONString(v); ok {
		if parent == nil || string(inner) != *parent {
			return fmt.Errorf("raw parentId %s does not match ParentID", v)
		}
		return nil
	}
	if string(v) == "null" { // a root: no decoder needed
		if parent != nil {
			return fmt.Errorf("raw parentId %s does not match ParentID", v)
		}
		return nil
	}
	got, ok := JSUnquote(v)
	if !ok {
		return fmt.Errorf("raw parentId %s is not a string or null", v)
	}
	if parent == nil || got != *parent {
		return fmt.Errorf("raw parentId %s does not match ParentID", v)
	}
	return nil
}
