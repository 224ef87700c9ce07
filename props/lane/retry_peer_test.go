package lane_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/frameproof/frameproof/props/peer/procgroup"
	"github.com/stretchr/testify/require"

	"github.com/frameproof/frameproof/impl/lane"
	"github.com/frameproof/frameproof/props/peer"
)

// retryCase is one retryDelayMs input; Cap nil leaves maxAgentDelayMs unset.
type retryCase struct {
	Base    float64  `json:"base"`
	Attempt int      `json:"attempt"`
	Cap     *float64 `json:"cap,omitempty"`
}

// pi-ai 1.0.3 dist/utils/retry.js retryDelayMs: lane.RetryDelay agrees with
// the peer on a grid of bases, attempts and caps (unset, small, huge, zero).
func TestRetryDelayMatchesPeerRetryDelayMs(t *testing.T) {
	dir := peer.Require(t, peer.PiAI)
	node, err := exec.LookPath("node")
	require.NoError(t, err)
	script := filepath.Join(dir, "node_modules", "@earendil-works", "pi-ai", "dist", "utils", "retry.js")
	_, err = os.Stat(script)
	require.NoError(t, err, "the pinned pi-ai ships dist/utils/retry.js")
	caps := []*float64{nil, ptr(0), ptr(2500), ptr(1e12)}
	var cases []retryCase
	for _, base := range []float64{0, 1, 50, 1000, 1.5, 3e15} {
		for attempt := 0; attempt <= 60; attempt += 3 {
			for _, c := range caps {
				cases = append(cases, retryCase{base, attempt, c})
			}
		}
	}
	in, err := json.Marshal(cases)
	if err != nil {
		t.Fatal(err)
	}
	js := `import { retryDelayMs } from ` + jsString(script) + `;
const cases = JSON.parse(process.argv[1]);
console.log(JSON.stringify(cases.map(c => retryDelayMs(c.cap === undefined ? { baseDelayMs: c.base } : { baseDelayMs: c.base, maxAgentDelayMs: c.cap }, c.attempt))));`
	out, err := procgroup.CommandContext(t.Context(), node, "--input-type=module", "-e", js, string(in)).Output()
	if err != nil {
		t.Fatalf("node: %v", err)
	}
	var want []float64
	if err := json.Unmarshal(out, &want); err != nil || len(want) != len(cases) {
		t.Fatalf("peer output %q: %v", out, err)
	}
	for i, c := range cases {
		got := lane.RetryDelay(lane.RetryPolicy{BaseDelayMs: c.Base, MaxAgentDelayMs: c.Cap}, c.Attempt)
		if got != want[i] {
			t.Errorf("retryDelayMs(base %v, attempt %d, cap %v) = %v, ours %v", c.Base, c.Attempt, deref(c.Cap), want[i], got)
		}
	}
}

func ptr(x float64) *float64 { return &x }

func deref(p *float64) any {
	if p == nil {
		return "unset"
	}
	return *p
}

func jsString(s string) string {
	b, _ := json.Marshal("file://" + filepath.ToSlash(s))
	return strings.TrimSpace(string(b))
}
