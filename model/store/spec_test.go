package store

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func ptr[T any](v T) *T { return &v }

func setV(ns, key, v string) Write {
	return Write{Kind: Value, Op: Set, Addr: Addr{ns, key}, Value: v}
}
func appendL(ns, key, v string) Write {
	return Write{Kind: List, Op: Append, Addr: Addr{ns, key}, Value: v}
}

func TestCommitAssignsSeqsAndStampsEntries(t *testing.T) {
	s := New()
	r, err := s.Commit([]Write{{Kind: Entry, ID: "e1"}, {Kind: Usage, ID: "u1"}, setV("n", "k", `1`)}, 77)
	require.NoError(t, err)
	assert.Equal(t, Result{FirstSeq: 1, Seqs: []int64{1, 2, 3}, Timestamp: 77}, r)
	r, err = s.Commit(nil, 78)
	require.NoError(t, err)
	assert.Equal(t, int64(4), r.FirstSeq, "an empty commit reports the next seq")
	assert.Empty(t, r.Seqs)
	assert.Equal(t, int64(4), s.NextSeq(), "and consumes none")
	assert.Equal(t, []Row{{ID: "e1", Seq: 1, Timestamp: 77}}, s.Entries())
	assert.Equal(t, []Row{{ID: "u1", Seq: 2}}, s.Usage())
	v, ok := s.GetValue(Addr{"n", "k"})
	require.True(t, ok)
	assert.Equal(t, Stored{`1`, 3}, v)
}

func TestCommitRulesApplyNothingOnError(t *testing.T) {
	s := New()
	_, err := s.Commit([]Write{{Kind: Entry, ID: "a"}}, 1)
	require.NoError(t, err)
	before := s.Snapshot()
	cases := []struct {
		writes []Write
		err    string
	}{
		{[]Write{setV("n", "k", "1"), {Kind: Usage, ID: "a"}}, "Duplicate entry or usage id: a"},
		{[]Write{{Kind: Usage, ID: "x"}, {Kind: Entry, ID: "x"}}, "Duplicate entry or usage id: x"},
		{[]Write{appendL("l", "", "1"), {Kind: Entry, ID: "b", ParentID: ptr("zz")}}, "Missing parent entry: zz"},
		{[]Write{{Kind: Usage, ID: "u"}, {Kind: Entry, ID: "b", ParentID: ptr("u")}}, "Missing parent entry: u"},
	}
	for _, c := range cases {
		_, err := s.Commit(c.writes, 2)
		require.EqualError(t, err, c.err)
		require.Empty(t, cmp.Diff(before, s.Snapshot()), "nothing applied")
	}
	_, err = s.Commit([]Write{{Kind: Entry, ID: "b", ParentID: ptr("c")}}, 3)
	require.EqualError(t, err, "Missing parent entry: c")
	_, err = s.Commit([]Write{{Kind: Entry, ID: "c", ParentID: ptr("a")}, {Kind: Entry, ID: "b", ParentID: ptr("c")}}, 3)
	require.NoError(t, err, "a parent earlier in the same transaction counts")
}

func TestListsAndValues(t *testing.T) {
	s := New()
	a := Addr{"pi.pending.assistant_frame", "op:r"}
	_, err := s.Commit([]Write{appendL(a.Namespace, a.Key, "f1"), appendL(a.Namespace, a.Key, "f2")}, 1)
	require.NoError(t, err)
	_, err = s.Commit([]Write{{Kind: List, Op: Delete, Addr: a}, appendL(a.Namespace, a.Key, "f3")}, 2)
	require.NoError(t, err)
	got, err := s.ReadList(a, nil, false, 0)
	require.NoError(t, err)
	assert.Equal(t, []Stored{{"f3", 4}}, got, "delete then append is a fresh list")

	_, err = s.Commit([]Write{appendL(a.Namespace, a.Key, "f4"), appendL(a.Namespace, a.Key, "f5")}, 3)
	require.NoError(t, err)
	got, _ = s.ReadList(a, ptr(int64(4)), false, 1)
	assert.Equal(t, []Stored{{"f4", 5}}, got)
	got, _ = s.ReadList(a, ptr(int64(6)), true, 0)
	assert.Equal(t, []Stored{{"f4", 5}, {"f3", 4}}, got)
	got, _ = s.ReadList(Addr{"none", ""}, nil, false, 5)
	assert.Equal(t, []Stored{}, got)
	_, err = s.ReadList(a, nil, false, -1)
	assert.EqualError(t, err, "List read limit must be a positive safe integer")

	_, err = s.Commit([]Write{setV("n", "b", "2"), setV("n", "a", "1"), setV("n", "ab", "3"), setV("m", "a", "x")}, 4)
	require.NoError(t, err)
	_, err = s.Commit([]Write{{Kind: Value, Op: Delete, Addr: Addr{"n", "b"}}, {Kind: Value, Op: Delete, Addr: Addr{"n", "zz"}}}, 5)
	require.NoError(t, err, "deleting an absent value is a no-op")
	sc := s.ScanValues("n", "a")
	assert.Equal(t, []KeyedValue{{"a", Stored{"1", 8}}, {"ab", Stored{"3", 9}}}, sc)
}

func TestCloneIsIndependent(t *testing.T) {
	s := New()
	_, _ = s.Commit([]Write{appendL("l", "", "1")}, 1)
	c := s.Clone()
	_, _ = c.Commit([]Write{appendL("l", "", "2"), {Kind: Entry, ID: "e"}}, 2)
	assert.Len(t, s.Snapshot().Lists[0].Elems, 1)
	assert.Empty(t, s.Entries())
	assert.NotEqual(t, s.Snapshot(), c.Snapshot())
}

func TestValidateAddr(t *testing.T) {
	assert.EqualError(t, ValidateAddr(Addr{"", "k"}), "Value namespace must not be empty")
	assert.EqualError(t, ValidateAddr(Addr{"a\x00", "k"}), `Value namespace must not contain \u0000`)
	assert.EqualError(t, ValidateAddr(Addr{"a", "k\x00"}), `Value key must not contain \u0000`)
	assert.NoError(t, ValidateAddr(Addr{"a", ""}))
}
