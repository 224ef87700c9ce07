package lanesim

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/frameproof/frameproof/impl/lane"
	"github.com/frameproof/frameproof/impl/store"
	ml "github.com/frameproof/frameproof/model/lane"
	"github.com/frameproof/frameproof/sim/choice"
	"github.com/frameproof/frameproof/sim/lanecmp"
	"github.com/frameproof/frameproof/sim/world"
)

// A mix run compares write lists, not only content: settlements, frame
// appends and terminals reach the comparison.
func TestMixComparesTransactionWriteLists(t *testing.T) {
	sc, ok := ScenarioByName("mix")
	require.True(t, ok)
	total := 0
	for seed := uint64(0); seed < 5; seed++ {
		out := sc.Run(choice.NewSeeded(seed), Options{})
		require.False(t, out.Failed, "seed %d: %s", seed, out.Message)
		total += out.TXCompared
	}
	t.Logf("5 mix seeds: %d transactions compared write by write", total)
	require.Greater(t, total, 10)
}

// DiffTX rejects a settlement whose tip precedes its usage row (pi's
// runtime/drive/response.ts publishResponse: entry, usage, tip, …).
func TestDiffTXRejectsReorderedSettlement(t *testing.T) {
	want := []ml.TXWrite{
		{Kind: "entry", Key: "r", Parent: "u"},
		{Kind: "usage", Key: "g"},
		{Kind: "value", Op: "set", Namespace: "pi.branch.tip", Key: "main", Value: `"r"`},
	}
	require.NoError(t, lanecmp.DiffTX(append([]ml.TXWrite(nil), want...), want))
	swapped := []ml.TXWrite{want[0], want[2], want[1]}
	require.ErrorContains(t, lanecmp.DiffTX(swapped, want), "differ from pi's order")
	wrongTip := append([]ml.TXWrite(nil), want...)
	wrongTip[2].Value = `"x"`
	require.Error(t, lanecmp.DiffTX(wrongTip, want))
	require.Error(t, lanecmp.DiffTX(want[:2], want))
}

// bareSeqs is a seq checker on enough of a runner: a world to note a
// failure in.
func bareSeqs() *seqChecker {
	return newSeqChecker(&runner{w: world.New(choice.NewSeeded(1), world.Options{})})
}

// checkSeqs fails a store that numbers a transaction's writes out of order,
// with a gap, or behind the previous transaction.
func TestCheckSeqsRejectsBrokenNumbering(t *testing.T) {
	ws := []store.Write{store.InsertEntry(store.Entry{ID: "e1", Raw: []byte(`{}`)}), store.InsertEntry(store.Entry{ID: "e2", Raw: []byte(`{}`)})}
	for _, tc := range []struct {
		name string
		prev int64
		res  store.CommitResult
		ok   bool
	}{
		{"consecutive", 4, store.CommitResult{FirstSeq: 5, Seqs: []int64{5, 6}}, true},
		{"after a gap", 4, store.CommitResult{FirstSeq: 9, Seqs: []int64{9, 10}}, true},
		{"reordered", 4, store.CommitResult{FirstSeq: 5, Seqs: []int64{6, 5}}, false},
		{"gap inside", 4, store.CommitResult{FirstSeq: 5, Seqs: []int64{5, 7}}, false},
		{"missing a seq", 4, store.CommitResult{FirstSeq: 5, Seqs: []int64{5}}, false},
		{"step back", 6, store.CommitResult{FirstSeq: 5, Seqs: []int64{5, 6}}, false},
	} {
		c := bareSeqs()
		c.lastSeq = tc.prev
		require.Equal(t, tc.ok, c.checkSeqs(ws, tc.res), tc.name)
		require.Equal(t, !tc.ok, c.r.failed, tc.name)
	}
}

// checkEventSeq fails an entry_added or usage event whose seq is not the
// one its row's acknowledged write got, or that comes before the commit.
func TestCheckEventSeqRejectsAWrongSeq(t *testing.T) {
	r := bareSeqs()
	require.True(t, r.checkSeqs([]store.Write{store.InsertEntry(store.Entry{ID: "e1", Raw: []byte(`{}`)})}, store.CommitResult{FirstSeq: 3, Seqs: []int64{3}}))
	require.True(t, r.checkEventSeq(lane.Event{Type: lane.EvEntryAdded, EntryID: "e1", Seq: 3}))
	require.True(t, r.checkEventSeq(lane.Event{Type: lane.EvTurnStart}), "other events carry no row seq")
	require.False(t, r.checkEventSeq(lane.Event{Type: lane.EvEntryAdded, EntryID: "e1", Seq: 4}))

	r = bareSeqs()
	require.False(t, r.checkEventSeq(lane.Event{Type: lane.EvUsage, UsageID: "u1", Seq: 1}), "usage before its row was acknowledged")
}
