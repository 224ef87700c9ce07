package main

import (
	"os"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"
)

// tuneProcsForSim lowers GOMAXPROCS to --jobs (until restored), never
// raises it, and leaves a GOMAXPROCS the user set alone.
func TestTuneProcsForSimGivesOnePPerJob(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	if v, set := os.LookupEnv("GOMAXPROCS"); set {
		t.Setenv("GOMAXPROCS", v) // restored after the test
	}
	require.NoError(t, os.Unsetenv("GOMAXPROCS"))
	runtime.GOMAXPROCS(4)
	tuneProcsForSim(8)
	require.Equal(t, 4, runtime.GOMAXPROCS(0), "more jobs than Ps: unchanged")
	restore := tuneProcsForSim(1)
	require.Equal(t, 1, runtime.GOMAXPROCS(0), "one job, one P")
	restore()
	require.Equal(t, 4, runtime.GOMAXPROCS(0), "restored")

	runtime.GOMAXPROCS(4)
	t.Setenv("GOMAXPROCS", "4")
	tuneProcsForSim(1)
	require.Equal(t, 4, runtime.GOMAXPROCS(0), "the user's GOMAXPROCS stands")
}
