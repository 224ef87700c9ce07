package bench

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/frameproof/frameproof/impl/env"
	"github.com/frameproof/frameproof/impl/store/jsonl"
)

// The generated session is a valid pi file with exactly the asked lines.
func TestGenerateSessionOpens(t *testing.T) {
	for _, n := range []int{1, 2, 23, 24, 1000} {
		content := GenerateSession(n)
		require.Equal(t, n, strings.Count(string(content), "\n"), "lines")
		p := filepath.Join(t.TempDir(), "s.jsonl")
		require.NoError(t, os.WriteFile(p, content, 0o644))
		s, err := jsonl.Open(env.Production(), p, jsonl.Options{Sync: jsonl.SyncNever})
		require.NoError(t, err, "n=%d", n)
		require.NoError(t, s.Close())
	}
}

// The family runs in quick mode and reports one row with both sides. Without
// node it is skipped, unless FRAMEPROOF_REQUIRE_PEER=1 (CI) makes that a failure.
func TestJSONLFamilyQuick(t *testing.T) {
	f, ok := Lookup("jsonl")
	require.True(t, ok)
	needs(t, f)
	tables, err := f.Run(context.Background(), Options{Quick: true})
	require.NoError(t, err)
	require.Len(t, tables, 1)
	require.Len(t, tables[0].Rows, 1)
	row := tables[0].Rows[0]
	require.Equal(t, "10000", row[0])
	for _, cell := range []string{row[2], row[3], row[5], row[6], row[7]} {
		v, err := strconv.ParseFloat(cell, 64)
		require.NoError(t, err, cell)
		require.Positive(t, v)
	}
	require.True(t, strings.HasSuffix(row[4], "×"), row[4])
}

// BenchmarkOpenSession opens a generated 100k-line pi session (for pprof).
func BenchmarkOpenSession(b *testing.B) {
	p := filepath.Join(b.TempDir(), "s.jsonl")
	require.NoError(b, os.WriteFile(p, GenerateSession(benchLines), 0o644))
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		require.NoError(b, openOnce(p))
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/benchLines, "ns/line")
}

const benchLines = 100_000
