package bench

import (
	"context"
	"strings"
	"testing"

	"github.com/frameproof/frameproof/props/peer"
	"github.com/stretchr/testify/require"
)

// TestFamiliesQuick runs every registered family in quick mode and checks
// the shape of what it prints: at least one table, a title, every row as
// wide as its header, no empty cell, and the rendering succeeds. It asserts
// no figure: speed is read from the tables, never from a threshold.
func TestFamiliesQuick(t *testing.T) {
	for _, f := range Families() {
		t.Run(f.Name, func(t *testing.T) {
			needs(t, f)
			opts := testOptions(t)
			tables, err := f.Run(context.Background(), opts)
			require.NoError(t, err)
			require.NotEmpty(t, tables, "family %s printed no table", f.Name)
			shapes := make([]TableShape, len(tables))
			for i, tb := range tables {
				shapes[i] = tb.Shape()
			}
			require.Equal(t, f.Shape(opts), shapes, "family %s's Shape against its run", f.Name)
			for _, tb := range tables {
				require.NotEmpty(t, tb.Title)
				require.GreaterOrEqual(t, len(tb.Header), 2, "%s: a table needs a label and a figure column", tb.Title)
				require.NotEmpty(t, tb.Rows, "%s: no rows", tb.Title)
				for _, r := range tb.Rows {
					require.Len(t, r, len(tb.Header), "%s: row %v", tb.Title, r)
					for _, c := range r {
						require.NotEmpty(t, strings.TrimSpace(c), "%s: empty cell in row %v", tb.Title, r)
					}
				}
				var b strings.Builder
				require.NoError(t, Render(&b, tb))
			}
		})
	}
}

// needs installs what f runs against (its peer, or node), or skips the test
// with one line naming what is missing, unless FRAMEPROOF_REQUIRE_PEER=1.
func needs(t *testing.T, f Family) {
	t.Helper()
	if f.Peer != "" {
		peer.Require(t, f.Peer)
	}
	if f.NeedsNode {
		peer.RequireNode(t)
	}
}

// TestReplayTableShape pins the replay family's rows and columns: one row
// per wire plus microcompact, one column per size.
func TestReplayTableShape(t *testing.T) {
	tables, err := runReplay(context.Background(), Options{Quick: true})
	require.NoError(t, err)
	require.Len(t, tables, 3)
	for _, tb := range tables {
		require.Equal(t, []string{"wire", "100 msgs", "1k msgs"}, tb.Header)
		var names []string
		for _, r := range tb.Rows {
			names = append(names, r[0])
		}
		require.Equal(t, []string{"anthropic", "openai-chat", "openai-responses", "gemini", "microcompact"}, names)
	}
}
