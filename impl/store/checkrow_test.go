package store

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// refPlainJSONString is plainJSONString a byte at a time.
func refPlainJSONString(v []byte) ([]byte, bool) {
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
		return nil, false
	}
	inner := v[1 : len(v)-1]
	for _, c := range inner {
		if c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			return nil, false
		}
	}
	return inner, true
}

// plainJSONString's word test agrees with the byte test on literals of
// every length around the words, of bytes at the edges of each class.
func TestPlainJSONStringIsTheByteTest(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		for range 20 {
			inner := rapid.SliceOfN(rapid.SampledFrom([]byte{'a', 'a', 'a', 0x00, 0x1f, 0x20, 0x21, '"', '#', '\\', 0x5b, 0x5d, 0x7e, 0x7f, 0x80, 0xc3, 0xfe, 0xff}), 0, 40).Draw(t, "inner")
			v := append(append([]byte{'"'}, inner...), '"')
			v = v[:len(v):len(v)]
			got, ok := plainJSONString(v)
			want, wantOK := refPlainJSONString(v)
			if ok != wantOK || !bytes.Equal(got, want) {
				t.Fatalf("%q: %v %q, the byte test %v %q", v, ok, got, wantOK, want)
			}
		}
	})
}

// refCheckRowRaw is checkRowRaw as it was, a pass over the members for
// each check: reserved keys through a function, then integer-like keys,
// then the id, in each member; then the parent (oldCheckParentField) and
// the kind (KindOf of the compact row).
func refCheckRowRaw(raw json.RawMessage, id string, entry bool, parent *string) (json.RawMessage, EntryKind, error) {
	reserved := func(k string) bool { return k == "kind" || k == "seq" || (entry && k == "timestamp") }
	fields, walked := refSplitRow(raw)
	compact := json.RawMessage(raw)
	if !walked {
		var err error
		if compact, err = compactJSON(raw); err != nil {
			return nil, EntryKind{}, fmt.Errorf("raw: %v", err)
		}
		if fields, err = appendCompactObject(nil, compact); err != nil {
			return nil, EntryKind{}, fmt.Errorf("raw: %v", err)
		}
	}
	var sawID bool
	for _, f := range fields {
		if reserved(f.Key) {
			return nil, EntryKind{}, fmt.Errorf("raw has reserved key %q", f.Key)
		}
		if isArrayIndexKey(f.Key) {
			return nil, EntryKind{}, fmt.Errorf("raw has integer-like key %q, which JS would reorder", f.Key)
		}
		if f.Key == "id" {
			if !jsonStringIs(f.Value, id) {
				return nil, EntryKind{}, fmt.Errorf("raw id %s does not match ID %q", f.Value, id)
			}
			sawID = true
		}
	}
	if !sawID {
		return nil, EntryKind{}, fmt.Errorf("raw has no id")
	}
	if !entry {
		return compact, EntryKind{}, nil
	}
	if err := oldCheckParentField(fields, parent); err != nil {
		return nil, EntryKind{}, err
	}
	return compact, KindOf(compact), nil
}

// rowWithMembers draws a row of pi's members and others (reserved,
// integer-like, escaped, repeated), in any order, now and then with
// space, and the id and parent to check it against: mostly a row whose
// id and parentId match them, so that the checks after the keys' are
// reached.
func rowWithMembers(t *rapid.T) (raw []byte, id string, parent *string) {
	ids := []string{"a", "b", "benchmark-entry-00000001"}
	id = rapid.SampledFrom(ids).Draw(t, "id")
	if rapid.Bool().Draw(t, "has parent") {
		p := rapid.SampledFrom(append(ids, "\ufffd")).Draw(t, "parent")
		parent = &p
	}
	var members []string
	if rapid.IntRange(0, 5).Draw(t, "no id") != 0 {
		v, _ := json.Marshal(id)
		if rapid.IntRange(0, 5).Draw(t, "other id") == 0 {
			v = []byte(rapid.SampledFrom([]string{`"b"`, `"\u0061"`, `null`, `"benchmark-entry-0000000\u0031"`}).Draw(t, "id value"))
		}
		members = append(members, `"id":`+string(v))
	}
	if rapid.IntRange(0, 5).Draw(t, "no parent") != 0 {
		v := []byte("null")
		if parent != nil {
			v, _ = json.Marshal(*parent)
		}
		if rapid.IntRange(0, 5).Draw(t, "other parent") == 0 {
			v = []byte(rapid.SampledFrom([]string{`"b"`, `"\u0061"`, `null`, `1`, "\"\xff\"", `"\ud800"`}).Draw(t, "parent value"))
		}
		members = append(members, `"parentId":`+string(v))
	}
	keys := []string{`"id"`, `"parentId"`, `"type"`, `"type"`, `"customType"`, `"customType"`, `"message"`, `"kind"`, `"seq"`, `"timestamp"`,
		`"0"`, `"4294967295"`, `"01"`, `"\u0069d"`, `"\u0074ype"`, `"é"`, `"usage"`}
	values := []string{`"a"`, `"benchmark-entry-00000001"`, `null`, `1`, `"message"`, `"custom"`,
		`"c\"q"`, `{"role":"user","content":[{"type":"text","text":"hi"}]}`, "\"\xff\"", `"\ud800"`}
	for range rapid.IntRange(0, 4).Draw(t, "members") {
		m := rapid.SampledFrom(keys).Draw(t, "key") + ":" + rapid.SampledFrom(values).Draw(t, "value")
		at := rapid.IntRange(0, len(members)).Draw(t, "at")
		members = append(members[:at], append([]string{m}, members[at:]...)...)
	}
	sep := ","
	if rapid.IntRange(0, 4).Draw(t, "spaced") == 0 {
		sep = ", "
	}
	return []byte("{" + strings.Join(members, sep) + "}"), id, parent
}

// checkRowRaw's one pass reports what the checks one by one reported,
// first error first, and returns the same row and kind.
func TestCheckRowRawIsTheChecksOneByOne(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		for range 20 {
			raw, id, parent := rowWithMembers(t)
			entry := rapid.IntRange(0, 3).Draw(t, "usage") != 0
			var kind EntryKind
			var a rowArena
			got, err := checkRowRaw(raw, id, entry, parent, &kind, &a)
			want, wantKind, wantErr := refCheckRowRaw(raw, id, entry, parent)
			if fmt.Sprint(err) != fmt.Sprint(wantErr) {
				t.Fatalf("%s (id %q, parent %v, entry %v): error %v, before %v", raw, id, parent, entry, err, wantErr)
			}
			if !bytes.Equal(got, want) || kind != wantKind {
				t.Fatalf("%s: %s %+v, before %s %+v", raw, got, kind, want, wantKind)
			}
		}
	})
}
