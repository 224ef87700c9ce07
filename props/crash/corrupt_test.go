package crash

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/frameproof/frameproof/faults"
	"github.com/frameproof/frameproof/impl/store/jsonl"
	"github.com/frameproof/frameproof/sim/choice"
)

// TestMidFileCorruptionIsReportedExactly: NUL garbage inside any complete
// line of a valid file (never valid JSON) makes Open fail with pi's exact
// "Invalid JSONL storage <path>: line <n>" and leaves the file untouched,
// whatever follows (more lines, or a torn tail).
func TestMidFileCorruptionIsReportedExactly(t *testing.T) {
	cases := 0
	for seed := uint64(1); seed <= uint64(budget(t, 200, 30)); seed++ {
		fsys := faults.NewFS(choice.Fixed(0))
		require.NoError(t, fsys.MkdirAll("/data"))
		st, err := jsonl.Create(sweepEnv(fsys), dataPath, jsonl.Header{ID: "s", CreatedAt: 1, Cwd: "/"}, jsonl.Options{})
		require.NoError(t, err)
		gen := NewGen(seed)
		for range 8 {
			_, _ = st.Commit(ToStore(gen.Commit()))
		}
		require.NoError(t, st.Close())
		content, ok := fsys.Durable(dataPath)
		require.True(t, ok)
		lines := bytes.SplitAfter(content, []byte("\n"))
		lines = lines[:len(lines)-1] // SplitAfter leaves an empty last element
		if len(lines) < 3 {
			continue
		}
		r := choice.NewSeeded(seed*1000 + 3)
		n := 2 + r.Intn("line", len(lines)-1) // 1-based line number of a record line
		line := lines[n-1]
		at := r.Intn("at", len(line)-1)
		span := 1 + r.Intn("span", len(line)-1-at)
		corrupt := append([]byte(nil), line...)
		for i := at; i < at+span; i++ {
			corrupt[i] = 0
		}
		var buf bytes.Buffer
		for i, l := range lines {
			if i == n-1 {
				buf.Write(corrupt)
			} else {
				buf.Write(l)
			}
		}
		if r.Intn("how", 2) == 0 {
			buf.WriteString(`{"kind":"value","op":"set","se`) // and a torn tail after it
		}
		fsys.WriteDurable(dataPath, buf.Bytes())
		_, err = jsonl.Open(sweepEnv(fsys), dataPath, jsonl.Options{})
		require.EqualError(t, err, fmt.Sprintf("Invalid JSONL storage %s: line %d", dataPath, n), "seed %d", seed)
		after, _ := fsys.ReadFile(dataPath)
		require.Equal(t, buf.Bytes(), after, "a corrupt file is never rewritten")
		cases++
	}
	t.Logf("%d corrupt files rejected with the exact error", cases)
	require.Positive(t, cases)
}
