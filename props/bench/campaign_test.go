package bench

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// frameproofBinary builds cmd/frameproof once for the package's tests: the
// campaign family runs campaigns as child processes of a frameproof binary,
// and a test binary is not one.
var frameproofBinary = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "frameproof-bench-test-")
	if err != nil {
		return "", err
	}
	buildDir = dir
	bin := filepath.Join(dir, "frameproof")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, "go", "build", "-o", bin, "github.com/frameproof/frameproof/cmd/frameproof").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("go build: %w\n%s", err, out)
	}
	return bin, nil
})

// buildDir holds frameproofBinary's build, removed after the tests.
var buildDir string

func TestMain(m *testing.M) {
	code := m.Run()
	if buildDir != "" {
		os.RemoveAll(buildDir)
	}
	os.Exit(code)
}

// testOptions is Options{Quick: true} with a frameproof binary on both
// sides of the campaign family.
func testOptions(t *testing.T) Options {
	bin, err := frameproofBinary()
	require.NoError(t, err)
	return Options{Quick: true, Base: bin, Self: bin}
}

// fakeCampaign is a stand-in frameproof: a script printing out and exiting
// with code.
func fakeCampaign(t *testing.T, out string, code int) string {
	bin := filepath.Join(t.TempDir(), "fake-frameproof")
	script := "#!/bin/sh\ncat <<'END'\n" + out + "\nEND\nexit " + strconv.Itoa(code) + "\n"
	require.NoError(t, os.WriteFile(bin, []byte(script), 0o755))
	return bin
}

// A child campaign's size comes from its throughput line; a campaign that
// fails, or is inconclusive outside --quick, or prints no throughput line,
// is an error, never a figure.
func TestRunChildCampaign(t *testing.T) {
	ctx := context.Background()
	line := "throughput: 17100 runs, 3782191 steps in 17.6s wall on 2 jobs (972.4 runs/s, 215066 steps/s)"
	r, err := runChildCampaign(ctx, fakeCampaign(t, "race coverage\n"+line+"\nverdict: PASS", 0), nil, false)
	require.NoError(t, err)
	require.Equal(t, 17100, r.runs)
	require.Equal(t, 3782191, r.steps)
	require.Positive(t, r.wall)

	_, err = runChildCampaign(ctx, fakeCampaign(t, line+"\nverdict: FAIL", 1), nil, true)
	require.ErrorContains(t, err, "verdict: FAIL")
	inconclusive := fakeCampaign(t, line+"\nverdict: INCONCLUSIVE", 3)
	_, err = runChildCampaign(ctx, inconclusive, nil, false)
	require.ErrorContains(t, err, "exit status 3")
	_, err = runChildCampaign(ctx, inconclusive, nil, true)
	require.NoError(t, err, "--quick's two seeds cannot cover every race row")
	_, err = runChildCampaign(ctx, fakeCampaign(t, "verdict: PASS", 0), nil, false)
	require.ErrorContains(t, err, "no \"throughput")
	_, err = runChildCampaign(ctx, fakeCampaign(t, "throughput: 0 runs, 0 steps in 0s", 0), nil, false)
	require.ErrorContains(t, err, "ran no scenario")
	_, err = runChildCampaign(ctx, filepath.Join(t.TempDir(), "missing"), nil, false)
	require.Error(t, err)
}

// A relative --base names a binary from the caller's directory, though
// the child runs in the temp directory.
func TestRunChildCampaignRelativePath(t *testing.T) {
	bin := fakeCampaign(t, "throughput: 5 runs, 50 steps in 1s\nverdict: PASS", 0)
	t.Chdir(filepath.Dir(bin))
	r, err := runChildCampaign(context.Background(), "."+string(filepath.Separator)+filepath.Base(bin), nil, false)
	require.NoError(t, err)
	require.Equal(t, 5, r.runs)
}

// A child stopped at its deadline says so, not only "signal: killed".
func TestRunChildCampaignDeadline(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "slow-frameproof")
	require.NoError(t, os.WriteFile(bin, []byte("#!/bin/sh\necho started >&2\nexec sleep 60\n"), 0o755))
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	_, err := runChildCampaign(ctx, bin, nil, false)
	require.ErrorContains(t, err, "killed at its deadline")
}

// The ratios are this build's runs per second over the base's: a build
// running the same runs in half the CPU reads 2.0×.
func TestCampaignRowRatios(t *testing.T) {
	base := campaignRun{user: 3e9, sys: 1e9, wall: 4e9, runs: 100}
	this := campaignRun{user: 2e9, sys: 0, wall: 1e9, runs: 100}
	require.Equal(t, []string{"1", "4.0 (4.0 s)", "25.0", "2.0 (1.0 s)", "50.0", "2.0×", "4.0×", "1.5×"}, campaignRow("1", base, this))
}

// The median row's run is one whole campaign, the middle one by CPU time.
func TestMedianRun(t *testing.T) {
	runs := []campaignRun{{user: 9e9, runs: 1}, {user: 2e9, runs: 2}, {user: 5e9, sys: 1e9, runs: 3}, {user: 1e9, runs: 4}}
	require.Equal(t, 2, medianRun(runs).runs, "the lower middle of four")
	require.Equal(t, 3, medianRun(runs[:3]).runs)
	require.Equal(t, 1, medianRun(runs[:1]).runs)
}

func TestCampaignNeedsBase(t *testing.T) {
	_, err := runCampaign(context.Background(), Options{Quick: true})
	require.ErrorContains(t, err, "--base BIN is required")
}
