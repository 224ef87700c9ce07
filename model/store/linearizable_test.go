package store

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// run steps ops in order and reports whether the sequence is legal.
func run(ops ...[2]any) bool {
	s := PartInit()
	for _, op := range ops {
		ok, n := PartStep(s, op[0].(Input), op[1].(Output))
		if !ok {
			return false
		}
		s = n
	}
	return true
}

func commit(ws ...Write) Input { return Input{Kind: HistCommit, Writes: ws} }
func readV(a Addr) Input       { return Input{Kind: HistReadValue, Addr: a} }

func TestProjectSplitsByAddress(t *testing.T) {
	a, b := Addr{"n", "a"}, Addr{"n", "b"}
	parts := Project(commit(setV("n", "a", "1"), Write{Kind: Entry, ID: "e"}, setV("n", "b", "2"), setV("n", "a", "3")),
		Output{Seqs: []int64{5, 6, 7, 8}})
	require.Len(t, parts, 3)
	assert.Equal(t, PartitionOf(Write{Kind: Value, Addr: a}), parts[0].Key)
	assert.Equal(t, []int64{5, 8}, parts[0].Out.Seqs)
	assert.Equal(t, "rows", parts[1].Key)
	assert.Equal(t, []int64{6}, parts[1].Out.Seqs)
	assert.Equal(t, PartitionOf(Write{Kind: Value, Addr: b}), parts[2].Key)
	assert.NotEqual(t, PartitionOf(Write{Kind: Value, Addr: a}), PartitionOf(Write{Kind: List, Addr: a}))
}

func TestPartStep(t *testing.T) {
	a := Addr{"n", "a"}
	set1 := [2]any{commit(setV("n", "a", "1")), Output{Seqs: []int64{3}}}
	assert.True(t, run(set1, [2]any{readV(a), Output{Found: true, Value: Stored{"1", 3}}}))
	assert.False(t, run(set1, [2]any{readV(a), Output{}}), "an acknowledged set must be visible")
	assert.False(t, run(set1, [2]any{readV(a), Output{Found: true, Value: Stored{"1", 4}}}), "with its seq")
	assert.False(t, run(set1, [2]any{commit(setV("n", "a", "2")), Output{Seqs: []int64{3}}}), "seqs increase")

	unknown := [2]any{commit(setV("n", "a", "9")), Output{Unknown: true}}
	assert.True(t, run(unknown, [2]any{readV(a), Output{Found: true, Value: Stored{"9", 12}}}), "an indefinite commit may have happened")
	assert.True(t, run(unknown,
		[2]any{readV(a), Output{Found: true, Value: Stored{"9", 12}}},
		[2]any{readV(a), Output{Found: true, Value: Stored{"9", 12}}}))
	assert.False(t, run(unknown,
		[2]any{readV(a), Output{Found: true, Value: Stored{"9", 12}}},
		[2]any{readV(a), Output{Found: true, Value: Stored{"9", 13}}}), "once observed its seq is pinned")

	l := Addr{"l", ""}
	app := func(v string, seq int64) [2]any {
		return [2]any{commit(appendL("l", "", v)), Output{Seqs: []int64{seq}}}
	}
	readL := func(elems ...Stored) [2]any {
		return [2]any{Input{Kind: HistReadList, Addr: l}, Output{Elems: elems}}
	}
	assert.True(t, run(app("x", 1), app("y", 2), readL(Stored{"x", 1}, Stored{"y", 2})))
	assert.False(t, run(app("x", 1), app("y", 2), readL(Stored{"y", 2}, Stored{"x", 1})))
	assert.True(t, run(app("x", 1), [2]any{commit(Write{Kind: List, Op: Delete, Addr: l}), Output{Seqs: []int64{2}}}, readL()))

	e := func(id string, parent *string) Write { return Write{Kind: Entry, ID: id, ParentID: parent} }
	rows := func(r ...RowRef) [2]any { return [2]any{Input{Kind: HistReadRows}, Output{Rows: r}} }
	assert.True(t, run([2]any{commit(e("a", nil)), Output{Seqs: []int64{1}}},
		[2]any{commit(e("b", ptr("a"))), Output{Seqs: []int64{2}}},
		[2]any{commit(e("a", nil)), Output{Err: "Duplicate entry or usage id: a"}},
		rows(RowRef{Entry, "a", 1}, RowRef{Entry, "b", 2})))
	assert.False(t, run([2]any{commit(e("b", ptr("a"))), Output{Seqs: []int64{1}}}), "acknowledged despite a missing parent")
	assert.False(t, run([2]any{commit(e("a", nil)), Output{Err: "Missing parent entry: a"}}), "wrong rejection")
	assert.True(t, run([2]any{commit(e("b", ptr("a"))), Output{Unknown: true}}, rows()), "an indefinite invalid commit has no effect")
}

func TestPartEqualAndDescribe(t *testing.T) {
	assert.True(t, PartEqual(PartState{Elems: []Stored{}}, PartState{}))
	assert.False(t, PartEqual(PartState{Rows: []RowRef{{Entry, "a", 1}}}, PartState{}))
	assert.Contains(t, DescribeHist(commit(setV("n", "a", "1")), Output{Unknown: true}), "-> ?")
	assert.Contains(t, DescribePart(PartInit()), "last=0")
}
