package bench

import (
	"context"
	"io"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/frameproof/frameproof/props/peer"
	"github.com/stretchr/testify/require"
)

// runQuick runs a family in quick mode, installing its peer first; a peer
// that cannot be installed skips the test unless FRAMEPROOF_REQUIRE_PEER=1.
func runQuick(t *testing.T, name string) []Table {
	t.Helper()
	f, ok := Lookup(name)
	require.True(t, ok, "family %q is not registered", name)
	needs(t, f)
	tables, err := f.Run(context.Background(), Options{Quick: true})
	require.NoError(t, err)
	return tables
}

var ratioCell = regexp.MustCompile(`^[0-9]+\.[0-9]×$`)

// The codec family's quick run gives its three tables, one row per quick
// size, every cell a figure of the kind its column names. (The figures
// themselves are not checked: speed is read from the tables, never
// asserted in tests.)
func TestCodecFamilyTables(t *testing.T) {
	tables := runQuick(t, "codec")
	require.Len(t, tables, 3)
	titles := []string{"Codec: encode and serialize one frame per event", "Codec: encoder alone (no serialization)", "Codec: reduce stored frames"}
	for i, tb := range tables {
		require.Equal(t, titles[i], tb.Title)
		require.NotEmpty(t, tb.Notes, tb.Title)
		require.Len(t, tb.Rows, 3, tb.Title)
		for r, row := range tb.Rows {
			require.Len(t, row, len(tb.Header), "%s row %d", tb.Title, r)
			require.Equal(t, []string{"1 KB", "16 KB", "64 KB"}[r], row[0], tb.Title)
			for c := 1; c < len(row); c++ {
				checkCell(t, tb.Header[c], row[c])
			}
		}
		require.NoError(t, Render(io.Discard, tb))
	}
	// AppendFrame and the old API run in the same table, beside pi-ai.
	require.Contains(t, tables[0].Header, "AppendFrame ns/event")
	require.Contains(t, tables[0].Header, "Encode + AppendJSON ns/event")
}

// checkCell requires a ratio (n.n×) under a ratio column, and otherwise a
// number: positive for times and rates, non-negative for allocations.
func checkCell(t *testing.T, header, cell string) {
	t.Helper()
	if header == "wall" || strings.HasPrefix(header, "pi-ai / ") {
		require.Regexp(t, ratioCell, cell, "column %q", header)
		return
	}
	v, err := strconv.ParseFloat(cell, 64)
	require.NoError(t, err, "column %q: %q is not a number", header, cell)
	if strings.HasPrefix(header, "allocs/") {
		require.GreaterOrEqual(t, v, 0.0, "column %q", header)
		return
	}
	require.Greater(t, v, 0.0, "column %q", header)
}

// Without a usable peer the family fails with ErrUnavailable (the CLI's
// exit 4), never with tables missing their pi-ai side.
func TestCodecFamilyNeedsThePeer(t *testing.T) {
	f, _ := Lookup("codec")
	tables, err := f.Run(context.Background(), Options{Quick: true, PeerDir: t.TempDir()})
	require.ErrorIs(t, err, peer.ErrUnavailable)
	require.Nil(t, tables)
}
