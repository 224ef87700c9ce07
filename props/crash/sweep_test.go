package crash

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/frameproof/frameproof/faults"
	"github.com/frameproof/frameproof/impl/store/jsonl"
)

// TestSweepJSONL enumerates crash images of JSONL workloads (prefix and
// subset crashes at every file-system operation) and checks that each
// recovers to a prefix holding every acknowledged commit. CRASH_WORKLOADS
// scales it (about 3,000 distinct images per workload).
func TestSweepJSONL(t *testing.T) {
	cfg := SweepConfig{Seed: 1, Workloads: budget(t, 32, 3), Options: jsonl.Options{RepairHoledTail: true}}
	st := SweepJSONL(cfg)
	t.Logf("jsonl crash sweep: %d workloads, %d crash points, %d crashes, %d distinct images (%d subset), %d recoveries checked",
		st.Workloads, st.CrashPoints, st.Crashes, st.Distinct, st.Subset, st.Checked)
	require.Empty(t, st.Failures)
	assert.Positive(t, st.Subset, "no subset crash image")
}

// TestSweepFindsHoledTails: with pi's recovery (no RepairHoledTail) a subset
// crash that keeps a later block of an append and drops an earlier one
// leaves a complete, corrupt final line, and the store no longer opens. The
// sweep must find it; prefix crashes alone never do.
func TestSweepFindsHoledTails(t *testing.T) {
	st := SweepJSONL(SweepConfig{Seed: 1, Workloads: 4, ImagesPerPoint: 300, Options: jsonl.Options{}})
	require.NotEmpty(t, st.Failures, "subset crashes must break pi's recovery")
	assert.Contains(t, st.Failures[0], "reopen failed")
	assert.Contains(t, st.Failures[0], "crash subset")
	t.Logf("first failure: %s", firstLine(st.Failures[0]))

	prefixOnly := faults.AllFaults
	prefixOnly.Subset = false
	st = SweepJSONL(SweepConfig{Seed: 1, Workloads: 4, ImagesPerPoint: 300, Options: jsonl.Options{}, Faults: prefixOnly})
	assert.Empty(t, st.Failures)
}

func firstLine(s string) string { l, _, _ := strings.Cut(s, "\n"); return l }
