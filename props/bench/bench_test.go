package bench

import (
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
