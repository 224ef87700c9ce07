package provider

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// An adapter line over the bound is reported as such, not as an adapter that
// closed its output (the scanner's error used to be dropped).
func TestExecReportsAnOverlongLine(t *testing.T) {
	defer func(n int) { maxAdapterLine = n }(maxAdapterLine)
	maxAdapterLine = 64
	_, err := StartExec([]string{"sh", "-c", `printf '%0100d\n' 0; sleep 5`}, "", 1, 10*time.Second)
	require.Error(t, err)
	require.ErrorContains(t, err, "token too long")
}
