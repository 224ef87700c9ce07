package bench

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The floor's figures (a tiny run of piFloorFigures) land in the
// Go floor column on exactly the get-100 rows and the write scenarios' Tx
// rows, adding no row of their own; the table keeps its Shape.
func TestFloorJoinsTheRightRows(t *testing.T) {
	sizes := piStorageSizes(true)
	floor, err := piFloorFigures(sizes, time.Millisecond, 1)
	require.NoError(t, err)
	var ours []piFigure
	for _, size := range sizes {
		for _, sc := range piReadScenarios {
			ours = append(ours, piFigure{Store: "memory", Dataset: size, Scenario: sc.name, CPUNs: 1})
		}
		ours = append(ours, piFigure{Store: "jsonl", Dataset: size, Scenario: "open", CPUNs: 1})
	}
	for _, sc := range piWriteScenarios {
		for _, v := range piWriteVariants {
			ours = append(ours, piFigure{Store: "memory", Scenario: sc.name, Variant: v, CPUNs: 1})
		}
	}
	tab := piStorageTable(nil, append(ours, floor...), true)
	f, ok := Lookup("pi-storage")
	require.True(t, ok)
	require.Equal(t, f.Shape(Options{Quick: true})[0].Rows, len(tab.Rows))
	col := len(tab.Header) - 1
	require.Equal(t, "Go floor", tab.Header[col])
	for _, r := range tab.Rows {
		isWriteTx := false
		for _, sc := range piWriteScenarios {
			isWriteTx = isWriteTx || r[0] == sc.name
		}
		want := r[0] == piGet100 || isWriteTx
		require.Equal(t, want, r[col] != "—", "row %v", r)
	}
}
