package store_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/frameproof/frameproof/impl/env/envtest"
	"github.com/frameproof/frameproof/impl/store"
	"github.com/frameproof/frameproof/impl/store/memory"
)

func entry(id string, parent string) store.Write {
	var p *string
	parentJSON := "null"
	if parent != "" {
		p = &parent
		parentJSON = `"` + parent + `"`
	}
	return store.InsertEntry(store.Entry{ID: id, ParentID: p,
		Raw: json.RawMessage(`{"type":"message","id":"` + id + `","parentId":` + parentJSON + `}`)})
}

func usage(id string) store.Write {
	return store.InsertUsage(store.UsageRow{ID: id, Raw: json.RawMessage(`{"id":"` + id + `","usage":{"input":1,"cost":{"total":0}},"adjustment":false}`)})
}

func TestAddressErrorsAreExactPiStrings(t *testing.T) {
	_, err := store.NewValue[int]("", "k")
	require.EqualError(t, err, `Value namespace must not be empty`)
	_, err = store.NewList[int]("a\x00b", "k")
	require.EqualError(t, err, `Value namespace must not contain \u0000`)
	_, err = store.NewValue[int]("ns", "k\x00")
	require.EqualError(t, err, `Value key must not contain \u0000`)
	_, err = store.NewValue[int]("ns", "\xff")
	require.ErrorContains(t, err, "not valid UTF-8")
	// a lone surrogate is a JS string (WTF-8 here), as pi's validateAddress
	// takes it; bytes no JS string makes are not
	for _, ok := range []string{"\xed\xa0\x80", "a\xed\xbf\xbfb", "\xed\xb0\x80\xed\xa0\x80", "\xed\xa0\x80x\xed\xb0\x80"} {
		_, err = store.NewValue[int]("ns", ok)
		require.NoError(t, err, "%q", ok)
	}
	for _, bad := range []string{"\xed\xa0", "\xed\x9f", "\xed\xa0\x80\xed\xb0\x80", "\xed\xa0\xc0", "\xc0\x80"} {
		_, err = store.NewValue[int](bad, "k")
		require.ErrorContains(t, err, "namespace is not valid UTF-8", "%q", bad)
	}
	a, err := store.NewValue[int]("ns", "")
	require.NoError(t, err, "empty key is legal")
	assert.Equal(t, store.KindValue, a.Kind)
	l := store.MustList[string]("ns", "k")
	assert.Equal(t, store.KindList, l.Kind)
}

func TestEncodeJSONMatchesJSONStringify(t *testing.T) {
	raw, err := store.EncodeJSON(map[string]any{"a": "<b>&\u2028\u2029", "c": `\u2028`})
	require.NoError(t, err)
	// < > & stay raw, U+2028/9 stay raw, and an escaped backslash followed by
	// "u2028" is not mistaken for an escape.
	assert.Equal(t, "{\"a\":\"<b>&\u2028\u2029\",\"c\":\"\\\\u2028\"}", string(raw))
	assert.Equal(t, `"a\"\\\b\f\n\r\t\u0001\u001fé"`, string(store.AppendJSString(nil, "a\"\\\b\f\n\r\t\x01\x1fé")))
}

func TestCommitRules(t *testing.T) {
	s := memory.New(envtest.NewTickClock(1000))
	ns := store.MustValue[int]("ns", "k")
	w1, err := store.SetValue(ns, 7)
	require.NoError(t, err)

	// Empty commit: no seq consumed, FirstSeq = next seq.
	res, err := s.Commit(nil)
	require.NoError(t, err)
	assert.Equal(t, int64(1), res.FirstSeq)
	assert.Empty(t, res.Seqs)

	res, err = s.Commit([]store.Write{entry("e1", ""), w1, usage("u1")})
	require.NoError(t, err)
	assert.Equal(t, int64(1), res.FirstSeq)
	assert.Equal(t, []int64{1, 2, 3}, res.Seqs)
	ents, _ := s.Entries()
	require.Len(t, ents, 1)
	assert.Equal(t, res.Timestamp, ents[0].Timestamp, "one timestamp per transaction, stored on entries")

	res, err = s.Commit(nil)
	require.NoError(t, err)
	assert.Equal(t, int64(4), res.FirstSeq)

	// Parent earlier in the same TX is fine.
	_, err = s.Commit([]store.Write{entry("e2", "e1"), entry("e3", "e2")})
	require.NoError(t, err)

	before := s.NextSeq()
	for name, tc := range map[string]struct {
		writes []store.Write
		err    string
	}{
		"dup entry":             {[]store.Write{entry("e1", "")}, "Duplicate entry or usage id: e1"},
		"entry reuses usage id": {[]store.Write{entry("u1", "")}, "Duplicate entry or usage id: u1"},
		"usage reuses entry id": {[]store.Write{usage("e2")}, "Duplicate entry or usage id: e2"},
		"dup inside TX":         {[]store.Write{usage("x"), entry("x", "")}, "Duplicate entry or usage id: x"},
		"missing parent":        {[]store.Write{w1, entry("e9", "nope")}, "Missing parent entry: nope"},
		"parent later in TX":    {[]store.Write{entry("a", "b"), entry("b", "")}, "Missing parent entry: b"},
		"usage id not a parent": {[]store.Write{entry("z", "u1")}, "Missing parent entry: u1"},
	} {
		_, err := s.Commit(tc.writes)
		require.EqualError(t, err, tc.err, name)
		assert.Equal(t, before, s.NextSeq(), "%s: nothing applied", name)
	}
	v, _ := s.GetValue(ns.Address)
	require.NotNil(t, v)
	assert.Equal(t, int64(2), v.Seq, "failed commits applied nothing")
}

func TestValidateCommittedRejectsNonMonotonicSeq(t *testing.T) {
	st := store.NewState()
	w := store.DeleteValueRaw(store.MustValue[int]("n", "k").Address)
	ws := []store.CommittedWrite{{Write: w, Seq: 5}, {Write: w, Seq: 5}}
	require.EqualError(t, st.Validate(ws), "Non-monotonic storage sequence: 5")
	require.EqualError(t, st.Validate([]store.CommittedWrite{{Write: w, Seq: 0}}), "Non-monotonic storage sequence: 0")
	require.NoError(t, st.Validate([]store.CommittedWrite{{Write: w, Seq: 3}, {Write: w, Seq: 9}}), "gaps are legal")
	// after a transaction's only row, the seqs are still checked
	row := store.InsertEntry(store.Entry{ID: "e", Raw: json.RawMessage(`{"id":"e","parentId":null}`)})
	require.EqualError(t, st.Validate([]store.CommittedWrite{{Write: w, Seq: 2}, {Write: row, Seq: 3}, {Write: w, Seq: 3}}),
		"Non-monotonic storage sequence: 3")
	// a later row's parent and duplicate checks see the rows before it
	child := store.InsertEntry(store.Entry{ID: "c", ParentID: ptrTo("e"), Raw: json.RawMessage(`{"id":"c","parentId":"e"}`)})
	require.NoError(t, st.Validate([]store.CommittedWrite{{Write: row, Seq: 1}, {Write: w, Seq: 2}, {Write: child, Seq: 3}}))
	require.EqualError(t, st.Validate([]store.CommittedWrite{{Write: row, Seq: 1}, {Write: child, Seq: 2}, {Write: row, Seq: 3}}),
		"Duplicate entry or usage id: e")
	usage := store.InsertUsage(store.UsageRow{ID: "e", Raw: json.RawMessage(`{"id":"e"}`)})
	require.EqualError(t, st.Validate([]store.CommittedWrite{{Write: usage, Seq: 1}, {Write: child, Seq: 2}}),
		"Missing parent entry: e", "a usage row is no parent")
}

func ptrTo(s string) *string { return &s }

func TestValuesAndLists(t *testing.T) {
	s := memory.New(envtest.NewTickClock(0))
	va := store.MustValue[string]("ns", "a")
	la := store.MustList[int]("ns", "a") // same ns/key as va: no cross-kind collision
	set := func(v string) store.Write { w, err := store.SetValue(va, v); require.NoError(t, err); return w }
	app := func(v int) store.Write { w, err := store.AppendList(la, v); require.NoError(t, err); return w }

	_, err := s.Commit([]store.Write{store.DeleteValue(va), store.DeleteList(la)})
	require.NoError(t, err, "deleting absent is a no-op")
	_, err = s.Commit([]store.Write{set("x"), set("y"), app(1), app(2)})
	require.NoError(t, err)
	got, _ := s.GetValue(va.Address)
	require.NotNil(t, got)
	assert.Equal(t, `"y"`, string(got.Value))
	assert.Equal(t, int64(4), got.Seq, "set stamps its own seq")

	// delete then append in one TX = a fresh list
	_, err = s.Commit([]store.Write{store.DeleteList(la), app(3)})
	require.NoError(t, err)
	els, err := s.ReadList(la.Address, store.ReadOptions{})
	require.NoError(t, err)
	if d := cmp.Diff([]store.ListElement{{Seq: 8, Value: json.RawMessage(`3`)}}, els); d != "" {
		t.Fatal(d)
	}
	_, err = s.Commit([]store.Write{store.DeleteValue(va)})
	require.NoError(t, err)
	got, _ = s.GetValue(va.Address)
	assert.Nil(t, got)
}

func TestReadListPaging(t *testing.T) {
	s := memory.New(envtest.NewTickClock(0))
	la := store.MustList[int]("ns", "l")
	var ws []store.Write
	for i := range 12_000 {
		w, _ := store.AppendList(la, i)
		ws = append(ws, w)
	}
	_, err := s.Commit(ws)
	require.NoError(t, err)
	read := func(o store.ReadOptions) []store.ListElement {
		els, err := s.ReadList(la.Address, o)
		require.NoError(t, err)
		return els
	}
	assert.Len(t, read(store.ReadOptions{}), 1000, "default limit")
	assert.Len(t, read(store.ReadOptions{Limit: 50_000}), 10_000, "clamped")
	c := int64(10)
	asc := read(store.ReadOptions{Cursor: &c, Limit: 2})
	assert.Equal(t, []int64{11, 12}, []int64{asc[0].Seq, asc[1].Seq}, "exclusive cursor ascending")
	desc := read(store.ReadOptions{Cursor: &c, Order: store.Desc, Limit: 3})
	assert.Equal(t, []int64{9, 8, 7}, []int64{desc[0].Seq, desc[1].Seq, desc[2].Seq}, "ordered before limiting")
	last := read(store.ReadOptions{Order: store.Desc, Limit: 1})
	assert.Equal(t, int64(12_000), last[0].Seq)
	_, err = s.ReadList(la.Address, store.ReadOptions{Limit: -1})
	require.EqualError(t, err, "List read limit must be a positive safe integer")
	_, err = s.ReadList(la.Address, store.ReadOptions{Order: "sideways"})
	require.Error(t, err)
	absent, err := s.ReadList(store.MustList[int]("ns", "none").Address, store.ReadOptions{})
	require.NoError(t, err)
	assert.NotNil(t, absent)
	assert.Empty(t, absent)
}

func TestScanValuesKeyOrderIsCodePointOrder(t *testing.T) {
	s := memory.New(envtest.NewTickClock(0))
	// U+FF5E (BMP, above the surrogate range) sorts before U+1F600 by code
	// point, as pi's compareKeys does; UTF-16 unit order would reverse them.
	keys := []string{"op:b", "op:\U0001F600", "op:a", "op:\uFF5E", "other", "op:"}
	var ws []store.Write
	for _, k := range keys {
		w, _ := store.SetValue(store.MustValue[string]("ns", k), k)
		ws = append(ws, w)
	}
	w, _ := store.SetValue(store.MustValue[string]("ns2", "op:z"), "z")
	ws = append(ws, w)
	_, err := s.Commit(ws)
	require.NoError(t, err)
	vals, err := s.ScanValues("ns", "op:")
	require.NoError(t, err)
	var got []string
	for _, v := range vals {
		got = append(got, v.Address.Key)
	}
	assert.Equal(t, []string{"op:", "op:a", "op:b", "op:\uFF5E", "op:\U0001F600"}, got)
}

func TestWriteShapeErrors(t *testing.T) {
	s := memory.New(envtest.NewTickClock(0))
	a := store.MustValue[int]("ns", "k").Address
	bad := map[string]store.Write{
		"bad json value":     store.SetValueRaw(a, json.RawMessage(`{`)),
		"missing value":      store.AppendListRaw(a, nil),
		"bad kind":           {Kind: "register", Namespace: "ns"},
		"bad op":             {Kind: store.WriteValue, Op: store.OpAppend, Namespace: "ns"},
		"empty ns":           store.DeleteValueRaw(store.Address{}),
		"entry id mismatch":  store.InsertEntry(store.Entry{ID: "a", Raw: json.RawMessage(`{"id":"b","parentId":null}`)}),
		"entry parent diff":  store.InsertEntry(store.Entry{ID: "a", Raw: json.RawMessage(`{"id":"a","parentId":"x"}`)}),
		"entry reserved key": store.InsertEntry(store.Entry{ID: "a", Raw: json.RawMessage(`{"id":"a","parentId":null,"seq":1}`)}),
		"entry reserved ts":  store.InsertEntry(store.Entry{ID: "a", Raw: json.RawMessage(`{"id":"a","parentId":null,"timestamp":1}`)}),
		"usage reserved key": store.InsertUsage(store.UsageRow{ID: "a", Raw: json.RawMessage(`{"id":"a","kind":"usage"}`)}),
		"usage int key":      store.InsertUsage(store.UsageRow{ID: "a", Raw: json.RawMessage(`{"id":"a","7":1}`)}),
		"usage dup key":      store.InsertUsage(store.UsageRow{ID: "a", Raw: json.RawMessage(`{"id":"a","id":"a"}`)}),
		"nil entry":          {Kind: store.WriteEntry},
	}
	for name, w := range bad {
		_, err := s.Commit([]store.Write{usage("ok"), w})
		require.Error(t, err, name)
		assert.False(t, strings.Contains(err.Error(), "panic"), name)
	}
	assert.Equal(t, int64(1), s.NextSeq(), "nothing applied")
	// Raw JSON with whitespace is compacted so that it fits one JSONL line.
	_, err := s.Commit([]store.Write{store.SetValueRaw(a, json.RawMessage("{\n \"x\" : [1, 2]\n}"))})
	require.NoError(t, err)
	v, _ := s.GetValue(a)
	assert.Equal(t, `{"x":[1,2]}`, string(v.Value))
}

func TestMemoryClosed(t *testing.T) {
	s := memory.New(envtest.NewTickClock(0))
	require.NoError(t, s.Close())
	_, err := s.Commit(nil)
	require.EqualError(t, err, "MemoryStorage is closed")
	_, err = s.GetValue(store.Address{Namespace: "n"})
	require.EqualError(t, err, "MemoryStorage is closed")
}
