package jsonl

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/frameproof/frameproof/impl/store"
)

// Records pi's JsonlStorage.open accepts open here by default; each case
// would have failed before frameproof followed pi's rules, and each is
// refused again under Options.Strict.

func openContent(t *testing.T, content string, opts Options) (*Store, *memFS, error) {
	t.Helper()
	m := newMemFS()
	m.put(path, []byte(content))
	s, err := Open(testEnv(m), path, opts)
	return s, m, err
}

func mustOpen(t *testing.T, content string) *Store {
	t.Helper()
	s, _, err := openContent(t, content, Options{})
	require.NoError(t, err)
	require.Equal(t, content, string(mustContent(t, s)), "open does not rewrite a complete file")
	return s
}

func mustContent(t *testing.T, s *Store) []byte {
	t.Helper()
	b, err := s.fs.ReadFile(s.path)
	require.NoError(t, err)
	return b
}

func requireLineError(t *testing.T, err error, line, cause string) {
	t.Helper()
	require.EqualError(t, err, "Invalid JSONL storage /s/session.jsonl: line "+line)
	require.NotNil(t, errors.Unwrap(err))
	assert.Equal(t, cause, errors.Unwrap(err).Error())
}

var nsK = store.Address{Namespace: "n", Key: "k"}

// pi: session/jsonl/storage.ts parseCommittedWrite (a set's value is not checked; undefined is stored)
func TestPiOpensSetWithoutValue(t *testing.T) {
	s := mustOpen(t, hdr+`{"kind":"value","op":"set","seq":1,"namespace":"n","key":"k"}`+"\n")
	v, err := s.GetValue(nsK)
	require.NoError(t, err)
	require.NotNil(t, v, "the value exists, holding undefined")
	assert.Nil(t, v.Value)
	// Compaction writes it back as JSON.stringify would: without "value".
	require.NoError(t, s.Compact())
	assert.Contains(t, string(mustContent(t, s)), `{"kind":"value","op":"set","seq":1,"namespace":"n","key":"k"}`+"\n")
	_, err = Open(testEnv(s.fs.(*memFS)), path, Options{})
	require.NoError(t, err, "the compacted file opens")
}

// pi: session/jsonl/storage.ts parseCommittedWrite (an append's value is not checked)
func TestPiOpensAppendWithoutValue(t *testing.T) {
	s := mustOpen(t, hdr+`{"kind":"list","op":"append","seq":1,"namespace":"n","key":"k"}`+"\n")
	els, err := s.ReadList(nsK, store.ReadOptions{})
	require.NoError(t, err)
	require.Len(t, els, 1)
	assert.Nil(t, els[0].Value)
}

// pi: session/in-memory-storage-state.ts applyValidated (a delete builds no address, so values.ts validateAddress never runs)
func TestPiOpensDeletesOfAnyAddress(t *testing.T) {
	for name, rec := range map[string]string{
		"NUL in value key":       `{"kind":"value","op":"delete","seq":1,"namespace":"n","key":"a\u0000b"}`,
		"NUL in list namespace":  `{"kind":"list","op":"delete","seq":1,"namespace":"n\u0000","key":"k"}`,
		"empty namespace":        `{"kind":"value","op":"delete","seq":1,"namespace":"","key":"k"}`,
		"number key":             `{"kind":"list","op":"delete","seq":1,"namespace":"n","key":5}`,
		"missing namespace":      `{"kind":"value","op":"delete","seq":1,"key":"k"}`,
		"object namespace":       `{"kind":"value","op":"delete","seq":1,"namespace":{},"key":"k"}`,
		"delete with extra data": `{"kind":"value","op":"delete","seq":1,"namespace":"n","key":"k","value":[1]}`,
	} {
		t.Run(name, func(t *testing.T) {
			s := mustOpen(t, hdr+rec+"\n")
			assert.Equal(t, int64(2), s.NextSeq())
		})
	}
}

// pi: session/in-memory-storage-state.ts applyValidated → values.ts value()/list() validateAddress (the TypeError is the line's cause)
func TestPiRefusesNewAddressesAsValuesTSDoes(t *testing.T) {
	cases := map[string]struct{ rec, cause string }{
		"NUL in set key":           {`{"kind":"value","op":"set","seq":1,"namespace":"n","key":"a\u0000","value":1}`, `Value key must not contain \u0000`},
		"NUL in append namespace":  {`{"kind":"list","op":"append","seq":1,"namespace":"\u0000","key":"k","value":1}`, `Value namespace must not contain \u0000`},
		"empty set namespace":      {`{"kind":"value","op":"set","seq":1,"namespace":"","key":"k","value":1}`, `Value namespace must not be empty`},
		"missing set namespace":    {`{"kind":"value","op":"set","seq":1,"key":"k","value":1}`, `Cannot read properties of undefined (reading 'length')`},
		"null append namespace":    {`{"kind":"list","op":"append","seq":1,"namespace":null,"key":"k","value":1}`, `Cannot read properties of null (reading 'length')`},
		"number set namespace":     {`{"kind":"value","op":"set","seq":1,"namespace":7,"key":"k","value":1}`, `namespace.includes is not a function`},
		"number set key":           {`{"kind":"value","op":"set","seq":1,"namespace":"n","key":5,"value":1}`, `key.includes is not a function`},
		"null append key":          {`{"kind":"list","op":"append","seq":1,"namespace":"n","key":null,"value":1}`, `Cannot read properties of null (reading 'includes')`},
		"array key holding NUL":    {`{"kind":"value","op":"set","seq":1,"namespace":"n","key":["\u0000"],"value":1}`, `Value key must not contain \u0000`},
		"empty array namespace":    {`{"kind":"value","op":"set","seq":1,"namespace":[],"key":"k","value":1}`, `Value namespace must not be empty`},
		"second record of the txn": {`[{"kind":"value","op":"set","seq":1,"namespace":"n","key":"k","value":1},{"kind":"value","op":"set","seq":2,"namespace":"n","key":"\u0000","value":1}]`, `Value key must not contain \u0000`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, m, err := openContent(t, hdr+tc.rec+"\n", Options{})
			requireLineError(t, err, "2", tc.cause)
			assert.Zero(t, m.ops, "no write of any kind")
		})
	}
}

// pi: session/in-memory-storage-state.ts applyValidated (list() runs only when the append creates the list)
func TestPiAppendsToAnExistingListWithoutAddressCheck(t *testing.T) {
	s := mustOpen(t, hdr+
		`{"kind":"list","op":"append","seq":1,"namespace":"n","key":"5","value":1}`+"\n"+
		`{"kind":"list","op":"append","seq":2,"namespace":"n","key":5,"value":2}`+"\n")
	els, err := s.ReadList(store.Address{Namespace: "n", Key: "5"}, store.ReadOptions{})
	require.NoError(t, err)
	assert.Len(t, els, 2, "String(5) names the same physical key")
}

// pi: session/in-memory-storage-state.ts applyValidated (an undefined key defaults to "" in value(), and the map key is String(undefined))
func TestPiOpensSetWithoutKeyOrWithArrayAddress(t *testing.T) {
	s := mustOpen(t, hdr+
		`{"kind":"value","op":"set","seq":1,"namespace":"n","value":1}`+"\n"+
		`{"kind":"value","op":"set","seq":2,"namespace":["m"],"key":["a","b"],"value":2}`+"\n")
	v, err := s.GetValue(store.Address{Namespace: "n", Key: "undefined"})
	require.NoError(t, err)
	require.NotNil(t, v)
	v, err = s.GetValue(store.Address{Namespace: "m", Key: "a,b"})
	require.NoError(t, err)
	require.NotNil(t, v)
	assert.Equal(t, "2", string(v.Value))
}

// pi: session/commit.ts validateCommittedWrites (ids are Map keys of any type; String() in messages)
func TestPiEntryIdsAreAnyJSONValue(t *testing.T) {
	s := mustOpen(t, hdr+
		`{"kind":"entry","type":"message","id":7,"parentId":null,"seq":1,"timestamp":1}`+"\n"+
		`{"kind":"entry","type":"message","id":"7","parentId":7,"seq":2,"timestamp":1}`+"\n"+
		`{"kind":"entry","type":"message","parentId":null,"seq":3,"timestamp":1}`+"\n"+
		`{"kind":"entry","type":"message","id":"c","seq":4,"timestamp":1}`+"\n"+
		`{"kind":"usage","id":{"a":1},"usage":{"cost":{}},"seq":5}`+"\n"+
		`{"kind":"usage","id":{"a":1},"usage":{"cost":{}},"seq":6}`+"\n")
	ents, err := s.Entries()
	require.NoError(t, err)
	require.Len(t, ents, 4)
	assert.Equal(t, "7", ents[1].Entry.ID)
	assert.NotEqual(t, ents[0].Entry.ID, ents[1].Entry.ID, "7 and \"7\" are different Map keys")
	assert.Equal(t, `{"type":"message","id":7,"parentId":null}`, string(ents[0].Entry.Raw))
	assert.Equal(t, `{"type":"message","id":"c"}`, string(ents[3].Entry.Raw), "a missing parentId finds the entry whose id is undefined")

	for name, tc := range map[string]struct{ content, cause string }{
		"string parent of a number id": {`{"kind":"entry","id":7,"parentId":null,"seq":1,"timestamp":1}` + "\n" + `{"kind":"entry","id":"x","parentId":"7","seq":2,"timestamp":1}`, "Missing parent entry: 7"},
		"missing parentId":             {`{"kind":"entry","id":"x","seq":1,"timestamp":1}`, "Missing parent entry: undefined"},
		"two undefined ids":            {`[{"kind":"entry","parentId":null,"seq":1,"timestamp":1},{"kind":"usage","seq":2,"usage":{"cost":{}}}]`, "Duplicate entry or usage id: undefined"},
		"object parent never matches":  {`{"kind":"entry","id":{},"parentId":null,"seq":1,"timestamp":1}` + "\n" + `{"kind":"entry","id":"x","parentId":{},"seq":2,"timestamp":1}`, "Missing parent entry: [object Object]"},
		"boolean duplicate":            {`[{"kind":"entry","id":true,"parentId":null,"seq":1,"timestamp":1},{"kind":"usage","id":true,"seq":2}]`, "Duplicate entry or usage id: true"},
	} {
		t.Run(name, func(t *testing.T) {
			_, _, err := openContent(t, hdr+tc.content+"\n", Options{})
			require.Error(t, err)
			require.NotNil(t, errors.Unwrap(err))
			assert.Equal(t, tc.cause, errors.Unwrap(err).Error())
		})
	}
}

// pi: session/jsonl/storage.ts parseTransaction (JSON.parse keeps the last duplicate at the first key's position and moves integer-like keys first)
func TestPiOpensDuplicateAndIntegerLikeKeys(t *testing.T) {
	s := mustOpen(t, hdr+
		`{"kind":"value","op":"set","seq":1,"namespace":"n","key":"k","value":1,"value":2}`+"\n"+
		`{"kind":"entry","b":1,"id":"e","2":"two","parentId":null,"b":3,"1":"one","seq":2,"timestamp":5}`+"\n")
	v, err := s.GetValue(nsK)
	require.NoError(t, err)
	assert.Equal(t, "2", string(v.Value))
	ents, err := s.Entries()
	require.NoError(t, err)
	assert.Equal(t, `{"1":"one","2":"two","b":3,"id":"e","parentId":null}`, string(ents[0].Entry.Raw))
}

// pi: session/jsonl/codec.ts parseJsonlSessionHeader (JSON.parse, so duplicate header keys keep the last value)
func TestPiOpensHeaderWithDuplicateKeys(t *testing.T) {
	s := mustOpen(t, `{"v":4,"kind":"header","id":"first","id":"sess","storageVersion":1,"createdAt":1,"cwd":"/w"}`+"\n")
	assert.Equal(t, "sess", s.Header().ID)
}

// pi: session/commit.ts validateCommittedWrites (seqs strictly increase within a line and across lines; a repeat is refused)
func TestPiRefusesRepeatedSeq(t *testing.T) {
	for name, content := range map[string]string{
		"within a transaction": `[{"kind":"value","op":"set","seq":1,"namespace":"n","key":"k","value":1},{"kind":"list","op":"append","seq":1,"namespace":"n","key":"k","value":1}]` + "\n",
		"across transactions":  rec1 + `{"kind":"list","op":"delete","seq":1,"namespace":"n","key":"l"}` + "\n",
	} {
		t.Run(name, func(t *testing.T) {
			_, _, err := openContent(t, hdr+content, Options{})
			require.Error(t, err)
			assert.Equal(t, "Non-monotonic storage sequence: 1", errors.Unwrap(err).Error())
		})
	}
	// The header's nextSeq is applied after replay (storage.ts open), so it
	// does not make the records' own seqs repeat.
	s := mustOpen(t, strings.Replace(hdr, `"cwd":"/w"`, `"cwd":"/w","nextSeq":9`, 1)+rec1)
	assert.Equal(t, int64(9), s.NextSeq())
}

// Options.Strict finds a repeated key among many members as among few
// (store.KeySet's set above store.PairwiseKeys), escaped or not, and accepts
// many distinct ones.
func TestStrictDuplicateKeyAmongManyMembers(t *testing.T) {
	// The record has six members of its own, and the repeated key makes
	// one more: 0 and store.PairwiseKeys-7 extra members are compared pair by
	// pair, store.PairwiseKeys-6 and more through the set.
	for _, n := range []int{0, store.PairwiseKeys - 7, store.PairwiseKeys - 6, 5000} {
		var extra strings.Builder
		for i := range n {
			fmt.Fprintf(&extra, `,"x%d":%d`, i, i)
		}
		rec := `{"kind":"value","op":"set","seq":1,"namespace":"n","key":"k","value":1` + extra.String()
		s, _, err := openContent(t, hdr+rec+"}\n", Options{Strict: true})
		require.NoError(t, err, "%d distinct members", n)
		require.NoError(t, s.Close())
		dups := map[string]string{`,"value":2`: "value", `,"v\u0061lue":2`: "value"}
		if n > 0 {
			dups[`,"x0":0`] = "x0"
		}
		for dup, key := range dups {
			_, _, err := openContent(t, hdr+rec+dup+"}\n", Options{Strict: true})
			requireLineError(t, err, "2", `Invalid JSONL transaction write: duplicate key "`+key+`"`)
		}
	}
}

// Options.Strict refuses each record above that pi opens.
func TestStrictRefusesWhatPiOpens(t *testing.T) {
	for name, tc := range map[string]struct{ rec, cause string }{
		"set without value": {`{"kind":"value","op":"set","seq":1,"namespace":"n","key":"k"}`, "Invalid JSONL value value"},
		"NUL in delete key": {`{"kind":"value","op":"delete","seq":1,"namespace":"n","key":"a\u0000b"}`, `Invalid JSONL value address: Value key must not contain \u0000`},
		"number id":         {`{"kind":"entry","id":7,"parentId":null,"seq":1,"timestamp":1}`, "Invalid JSONL entry id"},
		"duplicate key":     {`{"kind":"value","op":"set","seq":1,"namespace":"n","key":"k","value":1,"value":2}`, `Invalid JSONL transaction write: duplicate key "value"`},
		"number key":        {`{"kind":"list","op":"delete","seq":1,"namespace":"n","key":5}`, "Invalid JSONL list address"},
		"integer-like key":  {`{"kind":"entry","id":"e","1":"x","parentId":null,"seq":1,"timestamp":1}`, `Invalid JSONL entry record: store: write 0 (entry): entry "e": raw has integer-like key "1", which JS would reorder`},
		"usage without id":  {`{"kind":"usage","seq":1,"usage":{"cost":{}}}`, "Invalid JSONL usage id"},
	} {
		t.Run(name, func(t *testing.T) {
			_, _, err := openContent(t, hdr+tc.rec+"\n", Options{Strict: true})
			requireLineError(t, err, "2", tc.cause)
			_, _, err = openContent(t, hdr+tc.rec+"\n", Options{})
			require.NoError(t, err, "the default follows pi")
		})
	}
}
