package lanesim

import (
	"testing"

	"github.com/stretchr/testify/require"

	ml "github.com/frameproof/frameproof/model/lane"
	"github.com/frameproof/frameproof/sim/choice"
	"github.com/frameproof/frameproof/sim/lanecmp"
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
