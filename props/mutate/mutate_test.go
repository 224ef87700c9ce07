package mutate

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const fixtureSrc = `package p

func f(a, b int, err error) (int, error) {
	if err != nil {
		return 0, err
	}
	x := a
	x = b
	if ok(x) && a < 3 {
		g()
	}
	return x, nil
}
`

func TestFileMutantsCoverEveryOperator(t *testing.T) {
	ms, err := FileMutants("p", "p/p.go", []byte(fixtureSrc))
	require.NoError(t, err)
	var got []string
	for _, m := range ms {
		got = append(got, m.Op+" "+m.Orig+" -> "+m.Repl)
	}
	assert.Equal(t, []string{
		"COMPARE != -> ==",
		"OFF_BY_ONE 0 -> 1",
		"RETURN_NIL err -> nil",
		"DROP_ASSIGN x = b -> _ = b",
		"LOGIC && -> ||",
		"COMPARE < -> <=",
		"OFF_BY_ONE 3 -> 4",
		"DROP_CALL g() -> {}",
	}, got)
	assert.Equal(t, "--- p/p.go:8 (DROP_ASSIGN)\n-\tx = b\n+\t_ = b\n", ms[3].Diff([]byte(fixtureSrc)))
}

func TestBugSwitchLinesAreNotMutated(t *testing.T) {
	ms, err := FileMutants("p", "p/p.go", []byte("package p\n\nfunc f(c cfg) bool {\n\treturn c.Bugs.X && c.y\n}\n"))
	require.NoError(t, err)
	assert.Empty(t, ms)
}

func TestSampleIsDeterministicAndSeeded(t *testing.T) {
	ms, err := FileMutants("p", "p/p.go", []byte(fixtureSrc))
	require.NoError(t, err)
	a, b := Sample(ms, "p", 7, 3), Sample(ms, "p", 7, 3)
	assert.Equal(t, a, b)
	assert.Len(t, a, 3)
	differs := false
	for seed := uint64(0); seed < 20 && !differs; seed++ {
		differs = !assert.ObjectsAreEqual(a, Sample(ms, "p", seed, 3))
	}
	assert.True(t, differs, "every seed sampled the same mutants")
	assert.Len(t, Sample(ms, "p", 7, 0), len(ms))
	only := pick(ms, "p", Config{Only: []string{ms[2].ID(), "p/p.go:99:COMPARE@1"}})
	assert.Equal(t, []Mutant{ms[2]}, only)
}

// TestRunOnFixture runs the tool end to end on a small module: the killer
// (check's tests only, not calc's own unit test) kills every Sign mutant and
// the equivalent Max mutant survives.
func TestRunOnFixture(t *testing.T) {
	reports, err := Run(context.Background(), Config{
		Root: "testdata/fixture", Pkgs: []string{"calc"}, Seed: 1, Timeout: 2 * time.Minute,
		Killer: []string{"go", "test", "-count=1", "./check"},
	})
	require.NoError(t, err)
	require.Len(t, reports, 1)
	status := map[string]Status{}
	for _, r := range reports[0].Results {
		status[strings.TrimSpace(r.Mutant.Orig+" -> "+r.Mutant.Repl)+" line "+strconv.Itoa(r.Mutant.Line)] = r.Status
	}
	assert.Equal(t, map[string]Status{
		"> -> >= line 8":  Survived, // equivalent: Max(a, a) is a either way
		"< -> <= line 16": Killed,
		"0 -> 1 line 16":  Killed,
		"1 -> 2 line 17":  Killed,
		"1 -> 2 line 19":  Killed,
	}, status)
	assert.InDelta(t, 80, reports[0].Score(), 0.01)
}

func TestRunRejectsAFailingBaseline(t *testing.T) {
	_, err := Run(context.Background(), Config{
		Root: "testdata/fixture", Pkgs: []string{"calc"}, Timeout: time.Minute,
		Killer: []string{"go", "test", "-count=1", "./nonexistent"},
	})
	require.ErrorIs(t, err, ErrBaseline)
}
