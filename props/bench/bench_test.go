package bench

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestRenderTable(t *testing.T) {
	var b strings.Builder
	err := Render(&b, Table{Title: "t", Header: []string{"a", "b"}, Rows: [][]string{{"1", "2"}}, Notes: []string{"n"}})
	require.NoError(t, err)
	require.Equal(t, "### t\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\nn\n\n", b.String())
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestRenderReportsWriteError(t *testing.T) {
	require.Error(t, Render(failWriter{}, Table{Header: []string{"a"}}))
}

func TestRatio(t *testing.T) {
	require.Equal(t, "10.0×", Ratio(100, 10))
	require.Equal(t, "n/a", Ratio(1, 0))
}

// A registered family is listed in name order, found by name, and cannot
// be registered twice (families register from init, so a clash is a bug).
func TestRegisterListsAndLooksUp(t *testing.T) {
	saved := families
	t.Cleanup(func() { families = saved })
	families = map[string]Family{}
	run := func(context.Context, Options) ([]Table, error) { return nil, nil }
	shape := func(Options) []TableShape { return nil }
	Register(Family{Name: "zeta", Summary: "z", Run: run, Shape: shape})
	Register(Family{Name: "alpha", Summary: "a", Run: run, Shape: shape})
	var names []string
	for _, f := range Families() {
		names = append(names, f.Name)
	}
	require.Equal(t, []string{"alpha", "zeta"}, names)
	f, ok := Lookup("zeta")
	require.True(t, ok)
	require.Equal(t, "z", f.Summary)
	_, ok = Lookup("nope")
	require.False(t, ok)
	require.Panics(t, func() { Register(Family{Name: "alpha", Run: run, Shape: shape}) })
	require.Panics(t, func() { Register(Family{Name: "beta", Run: run}) }, "a family without a Shape")
}
