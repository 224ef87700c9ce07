package jsonl

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/frameproof/frameproof/impl/store"
)

const path = "/s/session.jsonl"

var (
	frames = store.MustList[json.RawMessage]("pi.pending.assistant_frame", "op1:r1")
	tip    = store.MustValue[string]("pi.branch.tip", "main")
)

func entryW(id, parent string) store.Write {
	var p *string
	pj := "null"
	if parent != "" {
		p, pj = &parent, `"`+parent+`"`
	}
	return store.InsertEntry(store.Entry{ID: id, ParentID: p, Raw: json.RawMessage(
		`{"type":"message","id":"` + id + `","parentId":` + pj + `,"message":{"role":"user","content":"<hi>"}}`)})
}

func usageW(id, entry string) store.Write {
	return store.InsertUsage(store.UsageRow{ID: id, Raw: json.RawMessage(
		`{"id":"` + id + `","usage":{"input":1,"cost":{"total":0}},"entryId":"` + entry + `","adjustment":false}`)})
}

func set(t testing.TB, a store.ValueAddr[string], v string) store.Write {
	w, err := store.SetValue(a, v)
	require.NoError(t, err)
	return w
}

func app(t testing.TB, v string) store.Write {
	return store.AppendListRaw(frames.Address, json.RawMessage(`{"type":"`+v+`"}`))
}

func newStore(t testing.TB, m *memFS, opts Options) *Store {
	s, err := Create(testEnv(m), path, Header{ID: "sess", CreatedAt: 1000, Cwd: "/w"}, opts)
	require.NoError(t, err)
	return s
}

func TestRecordFormatIsPiByteForByte(t *testing.T) {
	m := newMemFS()
	s := newStore(t, m, Options{Sync: SyncNever})
	_, err := s.Commit(nil)
	require.NoError(t, err)
	res, err := s.Commit([]store.Write{entryW("e1", "")})
	require.NoError(t, err)
	ts := res.Timestamp
	res2, err := s.Commit([]store.Write{usageW("u1", "e1"), set(t, tip, "e1\u2028"), app(t, "start")})
	require.NoError(t, err)
	_, err = s.Commit([]store.Write{store.DeleteList(frames), store.DeleteValue(tip)})
	require.NoError(t, err)
	want := `{"v":4,"kind":"header","id":"sess","storageVersion":1,"createdAt":1000,"cwd":"/w"}` + "\n" +
		fmt.Sprintf(`{"kind":"entry","type":"message","id":"e1","parentId":null,"message":{"role":"user","content":"<hi>"},"seq":1,"timestamp":%d}`, ts) + "\n" +
		`[{"kind":"usage","id":"u1","usage":{"input":1,"cost":{"total":0}},"entryId":"e1","adjustment":false,"seq":2},` +
		`{"kind":"value","op":"set","seq":3,"namespace":"pi.branch.tip","key":"main","value":"e1` + "\u2028" + `"},` +
		`{"kind":"list","op":"append","seq":4,"namespace":"pi.pending.assistant_frame","key":"op1:r1","value":{"type":"start"}}]` + "\n" +
		`[{"kind":"list","op":"delete","seq":5,"namespace":"pi.pending.assistant_frame","key":"op1:r1"},` +
		`{"kind":"value","op":"delete","seq":6,"namespace":"pi.branch.tip","key":"main"}]` + "\n"
	if d := cmp.Diff(want, string(m.content(path))); d != "" {
		t.Fatalf("file bytes (-want +got):\n%s", d)
	}
	assert.Equal(t, []int64{2, 3, 4}, res2.Seqs)
	require.NoError(t, s.Close())
	_, err = s.Commit(nil)
	require.ErrorIs(t, err, ErrClosed)
	require.EqualError(t, err, "JsonlStorage is closed")
	_, err = s.GetValue(tip.Address)
	require.EqualError(t, err, "JsonlStorage is closed")

	// Reopen: a list delete replayed does not resurrect elements.
	r, err := Open(testEnv(m), path, Options{})
	require.NoError(t, err)
	els, err := r.ReadList(frames.Address, store.ReadOptions{})
	require.NoError(t, err)
	assert.Empty(t, els)
	assert.Equal(t, int64(7), r.NextSeq())
	ents, _ := r.Entries()
	require.Len(t, ents, 1)
	assert.Equal(t, ts, ents[0].Timestamp)
}

const hdr = `{"v":4,"kind":"header","id":"sess","storageVersion":1,"createdAt":1,"cwd":"/w"}` + "\n"
const rec1 = `{"kind":"value","op":"set","seq":1,"namespace":"n","key":"k","value":1}` + "\n"

func TestOpenErrors(t *testing.T) {
	cases := []struct {
		name, content, err, cause string
	}{
		{"empty file", "", "Invalid JSONL storage /s/session.jsonl: missing header", ""},
		{"unterminated header", strings.TrimSuffix(hdr, "\n"), "Invalid JSONL storage /s/session.jsonl: missing header", ""},
		{"empty first line", "\n" + hdr, "Invalid JSONL storage /s/session.jsonl: missing header", ""},
		{"header not json", "{nope\n", "Invalid JSONL storage /s/session.jsonl: invalid header", "Invalid JSONL session header: not valid JSON"},
		{"header wrong v", strings.Replace(hdr, `"v":4`, `"v":5`, 1), "Invalid JSONL storage /s/session.jsonl: invalid header", "Unsupported JSONL session header"},
		{"header null parent", strings.Replace(hdr, `"cwd":"/w"`, `"cwd":"/w","parentSessionId":null`, 1), "Invalid JSONL storage /s/session.jsonl: invalid header", "Unsupported JSONL session header"},
		{"storage version", strings.Replace(hdr, `"storageVersion":1`, `"storageVersion":2`, 1), "Session sess uses unsupported storage version 2", ""},
		{"not json", hdr + rec1 + "{\n", "Invalid JSONL storage /s/session.jsonl: line 3", "Invalid JSONL transaction: not valid JSON"},
		{"empty interior line", hdr + "\n" + rec1, "Invalid JSONL storage /s/session.jsonl: line 2", "Invalid JSONL transaction: not valid JSON"},
		{"scalar", hdr + rec1 + "5\n", "Invalid JSONL storage /s/session.jsonl: line 3", "Invalid JSONL transaction write"},
		{"array of scalar", hdr + rec1 + "[5]\n", "Invalid JSONL storage /s/session.jsonl: line 3", "Invalid JSONL transaction write"},
		{"bad seq", hdr + rec1 + `{"kind":"value","op":"delete","seq":"2","namespace":"n","key":"k"}` + "\n", "Invalid JSONL storage /s/session.jsonl: line 3", "Invalid JSONL write seq"},
		{"zero seq", hdr + `{"kind":"value","op":"delete","seq":0,"namespace":"n","key":"k"}` + "\n", "Invalid JSONL storage /s/session.jsonl: line 2", "Invalid JSONL write seq"},
		{"fraction seq", hdr + `{"kind":"value","op":"delete","seq":1.5,"namespace":"n","key":"k"}` + "\n", "Invalid JSONL storage /s/session.jsonl: line 2", "Invalid JSONL write seq"},
		{"entry timestamp", hdr + `{"kind":"entry","id":"e","parentId":null,"seq":1,"timestamp":-1}` + "\n", "Invalid JSONL storage /s/session.jsonl: line 2", "Invalid JSONL entry timestamp"},
		{"value op", hdr + `{"kind":"value","op":"append","seq":1,"namespace":"n","key":"k"}` + "\n", "Invalid JSONL storage /s/session.jsonl: line 2", "Invalid JSONL value operation: append"},
		{"list op", hdr + `{"kind":"list","op":"set","seq":1,"namespace":"n","key":"k"}` + "\n", "Invalid JSONL storage /s/session.jsonl: line 2", "Invalid JSONL list operation: set"},
		{"list op missing", hdr + `{"kind":"list","seq":1,"namespace":"n","key":"k"}` + "\n", "Invalid JSONL storage /s/session.jsonl: line 2", "Invalid JSONL list operation: undefined"},
		{"register kind", hdr + rec1 + `{"kind":"register","seq":2,"namespace":"n","key":"k","value":1}` + "\n", "Invalid JSONL storage /s/session.jsonl: line 3", "Invalid JSONL write kind: register"},
		{"missing kind", hdr + `{"seq":1}` + "\n", "Invalid JSONL storage /s/session.jsonl: line 2", "Invalid JSONL write kind: undefined"},
		{"non-monotonic", hdr + rec1 + rec1, "Invalid JSONL storage /s/session.jsonl: line 3", "Non-monotonic storage sequence: 1"},
		{"missing parent", hdr + `{"kind":"entry","id":"e","parentId":"x","seq":1,"timestamp":1}` + "\n", "Invalid JSONL storage /s/session.jsonl: line 2", "Missing parent entry: x"},
		{"duplicate id", hdr + `[{"kind":"entry","id":"e","parentId":null,"seq":1,"timestamp":1},{"kind":"usage","id":"e","seq":2}]` + "\n", "Invalid JSONL storage /s/session.jsonl: line 2", "Duplicate entry or usage id: e"},
		{"corrupt last complete line before torn tail", hdr + rec1 + "{garbage\n" + `{"kind":"va`, "Invalid JSONL storage /s/session.jsonl: line 3", "Invalid JSONL transaction: not valid JSON"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := newMemFS()
			m.put(path, []byte(tc.content))
			_, err := Open(testEnv(m), path, Options{})
			require.EqualError(t, err, tc.err)
			if tc.cause != "" {
				require.NotNil(t, errors.Unwrap(err), "cause is kept")
				assert.Equal(t, tc.cause, errors.Unwrap(err).Error())
			}
			assert.Equal(t, tc.content, string(m.content(path)), "file untouched")
			assert.Zero(t, m.ops, "no write of any kind")
		})
	}
}

func TestTornTailIsDroppedAndRewritten(t *testing.T) {
	for name, torn := range map[string]string{
		"object": `{"kind":"value","op":"set","seq":2,"namespace":"n","key":"k","val`,
		"array":  `[{"kind":"list","op":"append","seq":2,"namespace":"n","key":"l","value":1},{"kind":"list","op":"app`,
	} {
		t.Run(name, func(t *testing.T) {
			m := newMemFS()
			m.put(path, []byte(hdr+rec1+torn))
			s, err := Open(testEnv(m), path, Options{})
			require.NoError(t, err)
			assert.Equal(t, hdr+rec1, string(m.content(path)), "exact prefix kept")
			assert.Contains(t, m.log, "rename /s/session.jsonl.tmp")
			_, tmpLeft := m.files[path+".tmp"]
			assert.False(t, tmpLeft)
			els, _ := s.ReadList(store.Address{Namespace: "n", Key: "l", Kind: store.KindList}, store.ReadOptions{})
			assert.Empty(t, els, "a torn array loses all its writes")
			res, err := s.Commit([]store.Write{store.DeleteValueRaw(store.Address{Namespace: "n", Key: "k"})})
			require.NoError(t, err)
			assert.Equal(t, int64(2), res.FirstSeq)
		})
	}
}

func TestTornRepairFailureRemovesTmp(t *testing.T) {
	m := newMemFS()
	m.put(path, []byte(hdr+rec1+`{"torn`))
	m.failAt = 3 // create tmp, write, (sync) ... fail at the third op
	_, err := Open(testEnv(m), path, Options{})
	require.ErrorContains(t, err, "JSONL storage /s/session.jsonl")
	_, tmpLeft := m.files[path+".tmp"]
	assert.False(t, tmpLeft, "tmp removed on failure")
	assert.Equal(t, hdr+rec1+`{"torn`, string(m.content(path)), "original untouched")
}

func TestHeaderNextSeqIsAHighWaterMark(t *testing.T) {
	m := newMemFS()
	m.put(path, []byte(strings.Replace(hdr, `"cwd":"/w"`, `"cwd":"/w","nextSeq":9`, 1)+rec1))
	s, err := Open(testEnv(m), path, Options{})
	require.NoError(t, err)
	res, err := s.Commit([]store.Write{store.DeleteValueRaw(store.Address{Namespace: "n", Key: "k"})})
	require.NoError(t, err)
	assert.Equal(t, int64(9), res.FirstSeq)
}

func TestCreateRefusesExistingFile(t *testing.T) {
	m := newMemFS()
	m.put(path, []byte(hdr))
	_, err := Create(testEnv(m), path, Header{ID: "x"}, Options{})
	require.ErrorContains(t, err, "file exists")
}

func TestFailedAppendPoisonsTheStore(t *testing.T) {
	m := newMemFS()
	s := newStore(t, m, Options{})
	m.mu.Lock()
	m.failAt = m.ops + 1
	m.mu.Unlock()
	_, err := s.Commit([]store.Write{set(t, tip, "a")})
	require.ErrorContains(t, err, "Failed to append JSONL storage /s/session.jsonl: injected I/O error")
	v, _ := s.GetValue(tip.Address)
	assert.Nil(t, v, "memory state applied only after the append succeeded")
	_, err = s.Commit([]store.Write{set(t, tip, "b")})
	require.ErrorContains(t, err, "an earlier write failed")
	// Reopening repairs the torn half-line.
	r, err := Open(testEnv(m), path, Options{})
	require.NoError(t, err)
	assert.Equal(t, int64(1), r.NextSeq())
}
