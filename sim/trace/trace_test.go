package trace

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

func TestLinesAreCanonicalJSON(t *testing.T) {
	tr := New()
	tr.Add(1, 0, "", "main#1", "spawn", F("name", "main"))
	tr.Add(2, 1500, "lane@2", "committer#7", "wait", F("future", "commit#3"), F("n", 3), F("ok", true),
		F("err", errors.New("boom")), F("nil", nil), F("m", map[string]int{"b": 2, "a": 1}))
	tr.Add(3, 1500, "p", "a", "note", F("s", "quote\" back\\ nl\n ctl\x01 bad\xff é"))
	var buf bytes.Buffer
	require.NoError(t, tr.WriteJSONL(&buf))
	want := `{"step":1,"t":0,"proc":"","actor":"main#1","act":"spawn","kv":{"name":"main"}}
{"step":2,"t":1500,"proc":"lane@2","actor":"committer#7","act":"wait","kv":{"future":"commit#3","n":3,"ok":true,"err":"boom","nil":null,"m":{"a":1,"b":2}}}
{"step":3,"t":1500,"proc":"p","actor":"a","act":"note","kv":{"s":"quote\" back\\ nl\n ctl\u0001 bad\ufffd é"}}
`
	require.Equal(t, want, buf.String())
	for i, l := range bytes.Split(bytes.TrimSpace(buf.Bytes()), []byte("\n")) {
		require.True(t, json.Valid(l), "line %d is not valid JSON: %s", i+1, l)
	}
	recs, err := tr.Records()
	require.NoError(t, err)
	require.Len(t, recs, 3)
	require.Equal(t, "committer#7", recs[1].Actor)
	require.Equal(t, int64(1500), recs[1].T)
}

func TestHashIsOfTheBytesAndHashOnlyAgrees(t *testing.T) {
	a, b, c := New(), NewHashOnly(), New()
	for _, tr := range []*Trace{a, b, c} {
		tr.Add(1, 0, "p", "x", "go")
		tr.Add(2, 5, "p", "x", "sleep", F("d", "5ns"))
	}
	c.Add(3, 5, "p", "x", "done")
	require.Equal(t, a.Hash(), b.Hash())
	require.NotEqual(t, a.Hash(), c.Hash())
	require.Equal(t, 2, a.Len())
	require.Error(t, b.WriteJSONL(&bytes.Buffer{}))
	_, err := b.Records()
	require.Error(t, err)
}

func TestParseJSONLNamesTheLine(t *testing.T) {
	_, err := ParseJSONL([]byte("{\"step\":1}\n{oops\n"))
	require.ErrorContains(t, err, "line 2")
}

// Hash is the sha256 of every byte added so far, whenever it is asked,
// however the lines fall around the hash's chunks, and Add keeps going
// after it.
func TestHashAtAnyPointIsOfTheBytesSoFar(t *testing.T) {
	tr := New()
	for i := int64(0); i < 3*hashChunk/40; i++ {
		tr.Add(i, i*7, "p", "actor", "step", F("s", "plain"), F("i", i))
		if i%97 == 0 || i%hashChunk == 1 {
			var buf bytes.Buffer
			require.NoError(t, tr.WriteJSONL(&buf))
			sum := sha256.Sum256(buf.Bytes())
			require.Equal(t, hex.EncodeToString(sum[:]), tr.Hash(), "after %d lines", i+1)
		}
	}
	var buf bytes.Buffer
	require.NoError(t, tr.WriteJSONL(&buf))
	require.Greater(t, buf.Len(), 2*hashChunk)
	sum := sha256.Sum256(buf.Bytes())
	require.Equal(t, hex.EncodeToString(sum[:]), tr.Hash())
	require.Equal(t, int64(buf.Len()), tr.Size())
}

// appendString's plain-ASCII head is copied whole; what follows it is
// escaped as before: every string escapes as encoding/json does, except
// that HTML characters stay as they are.
func TestAppendStringEscapesAfterAPlainHead(t *testing.T) {
	for _, s := range []string{"", "plain", "plain\"q", "tab\there", "é first", "end\\", "ctl\x01", "bad\xff", "\x7f del", "<a&b>"} {
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		require.NoError(t, enc.Encode(s))
		require.Equal(t, bytes.TrimSuffix(want.Bytes(), []byte("\n")), appendString(nil, s), "%q", s)
	}
}

// A []string field, or a pointer to one, is encoded as encoding/json
// encodes it, on the fast path and off it.
func TestStringSliceFieldsAreJSON(t *testing.T) {
	for _, ss := range [][]string{nil, {}, {"a"}, {"main#1", "lane@2/committer#7"}, {"<a>"}, {"x&y"}, {"q\""}, {"é"}, {"tab\t"}, {"\u2028"}} {
		want, err := json.Marshal(ss)
		require.NoError(t, err)
		require.Equal(t, string(want), string(appendValue(nil, ss)), "%q", ss)
		require.Equal(t, string(want), string(appendValue(nil, &ss)), "&%q", ss)
	}
	require.Equal(t, "null", string(appendValue(nil, (*[]string)(nil))))
}

// S and I write what F writes with the same string or int64.
func TestStringAndIntFieldsWriteWhatFWrites(t *testing.T) {
	strs := []string{"", "plain", "quote\" back\\ nl\n ctl\x01 bad\xff é", "<&>"}
	ints := []int64{0, -1, 1, 255, 256, -9223372036854775808, 9223372036854775807}
	f, si := New(), New()
	for _, s := range strs {
		f.Add(1, 2, "p", "a", "s", F("k", s), F("k2", s))
		si.Add(1, 2, "p", "a", "s", S("k", s), F("k2", s))
	}
	for _, i := range ints {
		f.Add(1, 2, "p", "a", "i", F("k", i), F("s", "x"))
		si.Add(1, 2, "p", "a", "i", I("k", i), S("s", "x"))
	}
	requireSameTrace(t, f, si)
}

// plainWord is plainByte for all eight bytes of a word: every byte value
// in every position of an otherwise plain word, and random words.
func TestPlainWordIsPlainByteEightTimes(t *testing.T) {
	want := func(w []byte) bool {
		for _, c := range w {
			if !plainByte[c] {
				return false
			}
		}
		return true
	}
	w := []byte("abcdefgh")
	for pos := 0; pos < 8; pos++ {
		for c := 0; c < 256; c++ {
			v := append([]byte(nil), w...)
			v[pos] = byte(c)
			require.Equal(t, want(v), plainWord(loadWord(string(v))), "byte %#x at %d", c, pos)
		}
	}
	seed := uint64(1)
	for range 100000 {
		seed = seed*6364136223846793005 + 1442695040888963407
		v := make([]byte, 8)
		for i := range v {
			// mostly plain bytes, sometimes any
			x := byte(seed >> (8 * i))
			if x&3 != 0 {
				x = 0x20 + x%0x60
			}
			v[i] = x
		}
		require.Equal(t, want(v), plainWord(loadWord(string(v))), "%q", v)
	}
}

// SN(k, s, n) writes what S(k, s+"#"+n) writes, escapes and invalid
// bytes at the end of s included.
func TestSeqNameFieldWritesWhatSWrites(t *testing.T) {
	strs := []string{"", "line:append", "quote\"", "back\\", "nl\n", "ctl\x01", "bad\xff", "cut\xe2\x82", "é", "a long plain future name of more than eight bytes", "\u2028"}
	ints := []int64{0, 1, 42, -7, 9223372036854775807}
	s, sn := New(), New()
	for _, x := range strs {
		for _, n := range ints {
			s.Add(1, 2, "p", "a", "f", S("future", x+"#"+strconv.FormatInt(n, 10)), I("i", n))
			sn.Add(1, 2, "p", "a", "f", SN("future", x, n), I("i", n))
		}
	}
	requireSameTrace(t, s, sn)
}

// AddWho with NewWho(proc, actor) adds the line Add(proc, actor) adds, for
// any strings (escapes and invalid bytes among them, and labels too long
// for NewWho's stack buffer), and the same hash.
func TestAddWhoIsAdd(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a, b := New(), New()
		str := rapid.OneOf(rapid.String(), rapid.StringMatching(`[a-z]{0,6}(@[0-9])?(#[0-9]{1,3})?`), rapid.StringMatching(`[a-z"]{50,140}`),
			rapid.Map(rapid.SliceOf(rapid.Byte()), func(bs []byte) string { return string(bs) }))
		for i := range rapid.IntRange(1, 5).Draw(t, "records") {
			proc, actor, act := str.Draw(t, "proc"), str.Draw(t, "actor"), str.Draw(t, "act")
			step, at := int64(i), rapid.Int64().Draw(t, "t")
			kv := []Field{S("k", str.Draw(t, "v")), I("n", rapid.Int64().Draw(t, "n"))}[:rapid.IntRange(0, 2).Draw(t, "kv")]
			a.Add(step, at, proc, actor, act, kv...)
			b.AddWho(step, at, NewWho(proc, actor), act, kv...)
		}
		requireSameTrace(t, a, b)
	})
}

// NewWhoSN(proc, actor, n) is NewWho(proc, actor+"#"+n), for any strings
// and numbers (labels too long for the stack buffer among them).
func TestNewWhoSNIsNewWho(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		str := rapid.OneOf(rapid.String(), rapid.StringMatching(`[a-z]{0,6}(@[0-9])?`), rapid.StringMatching(`[a-z"]{50,140}`))
		proc, actor, n := str.Draw(t, "proc"), str.Draw(t, "actor"), rapid.Int64().Draw(t, "n")
		if got, want := NewWhoSN(proc, actor, n), NewWho(proc, actor+"#"+strconv.FormatInt(n, 10)); got != want {
			t.Fatalf("NewWhoSN %q, NewWho %q", got.frag, want.frag)
		}
	})
}

// requireSameTrace requires two traces to write the same lines and to
// have the same size and hash.
func requireSameTrace(t require.TestingT, want, got *Trace) {
	var wb, gb bytes.Buffer
	require.NoError(t, want.WriteJSONL(&wb))
	require.NoError(t, got.WriteJSONL(&gb))
	require.Equal(t, wb.String(), gb.String())
	require.Equal(t, want.Size(), got.Size())
	require.Equal(t, want.Hash(), got.Hash())
}

// NewWho is proc and actor as Add writes them: the oracle NewWhoSN and
// AddWho are tested against (the world names every actor with a number,
// so only NewWhoSN is used outside tests).
func NewWho(proc, actor string) Who {
	b := []byte(`,"proc":`)
	b = appendString(b, proc)
	b = append(b, `,"actor":`...)
	b = appendString(b, actor)
	b = append(b, `,"act":`...)
	return Who{frag: string(b)}
}
