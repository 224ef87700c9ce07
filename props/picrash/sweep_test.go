package picrash

import (
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/frameproof/frameproof/faults"
	"github.com/frameproof/frameproof/impl/store"
	mstore "github.com/frameproof/frameproof/model/store"
	"github.com/frameproof/frameproof/props/crash"
	"github.com/frameproof/frameproof/props/peer"
	"github.com/frameproof/frameproof/sim/choice"
)

// budget returns the number of workloads: PICRASH_WORKLOADS overrides.
func budget(t *testing.T, normal int) int {
	if s := os.Getenv("PICRASH_WORKLOADS"); s != "" {
		n, err := strconv.Atoi(s)
		require.NoError(t, err)
		return n
	}
	return normal
}

func startDriver(t *testing.T, mutate string) *Driver {
	t.Helper()
	dir := peer.Require(t, peer.PiAgentCore)
	node := peer.RequireNode(t)
	d, err := StartDriver(t.Context(), node, dir, mutate)
	require.NoError(t, err)
	t.Cleanup(func() { _ = d.Close() })
	return d
}

func logStats(t *testing.T, name string, st Stats) {
	t.Helper()
	t.Logf("%s: %d workloads, %d crash points, %d crashes, %d distinct images (%d subset), %d checks, pi opened %d",
		name, st.Workloads, st.CrashPoints, st.Crashes, st.Distinct, st.Subset, st.Checked, st.Opened)
	t.Logf("%s: acknowledged commits lost in %d checks (at most %d at once): file gone %d, refused without a header %d, refused with a hole %d",
		name, st.AckedLost, st.MaxAckedLost, st.Gone, st.NoHeader, st.Holed)
	if st.Repaired > 0 {
		t.Logf("%s: repair on open crashed: %d distinct repairs, %d repair crash images checked, %d of them lost durable commits",
			name, st.Repaired, st.RepairChecked, st.RepairLost)
	}
	keys := make([]string, 0, len(st.Refusals))
	for k := range st.Refusals {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		t.Logf("%s: pi refused %d checks with %q", name, st.Refusals[k], k)
	}
	for _, k := range []string{"prefix", "gone", "no header", "hole", "repair no header", "repair prefix", "repair gone", "repair hole"} {
		if e, ok := st.Examples[k]; ok {
			t.Logf("%s: first loss (%s): %s", name, k, firstLine(e))
		}
	}
}

func firstLine(s string) string { l, _, _ := strings.Cut(s, "\n"); return l }

// TestPiJSONLCrashImages is the crash-image sweep of pi's own JsonlStorage
// (pi-agent-core 0.85.1) on frameproof's page-cache file system: random
// workloads (crash.NewGen), crashed at every file-system operation pi makes
// (its writes replayed into faults.FS from crash-driver.mjs's log), every
// crash decision choice.Enumerate reaches (up to 300 per point and mode),
// each distinct image opened by a fresh JsonlStorage, and the torn-tail
// repair on open crashed too. The checker expects pi's durability
// (ExpectPi: pi never fsyncs, so acknowledged is not durable; see
// docs/PI-FINDINGS.md, "pi's JSONL store loses acknowledged commits on
// power loss") and fails on anything else: a torn image that does not open
// or opens to other than its whole lines, a repair that does not cut the
// file to its complete lines, a state that is no commit prefix.
// PICRASH_WORKLOADS=N sets the number of workloads (16 by default, about 3 s;
// each adds about 800 distinct images; 200 take about 50 s).
func TestPiJSONLCrashImages(t *testing.T) {
	d := startDriver(t, "")
	st, err := Sweep(t.Context(), d, Config{Seed: 1, Workloads: budget(t, 16), Expect: ExpectPi, Repair: true})
	require.NoError(t, err)
	logStats(t, "pi jsonl crash sweep", st)
	require.Empty(t, st.Failures)
	assert.Positive(t, st.Subset, "no subset crash image")
	assert.Positive(t, st.Opened, "pi opened no image")
	assert.Positive(t, st.Repaired, "no torn image was repaired")
	// The finding: pi's store loses acknowledged commits on power loss.
	assert.Positive(t, st.AckedLost, "pi's store lost no acknowledged commit: has pi started to fsync? Update docs/PI-FINDINGS.md")
	assert.Positive(t, st.RepairLost, "no crash inside pi's repair lost the durable session: has pi started to fsync? Update docs/PI-FINDINGS.md")
}

// TestPiJSONLCrashImagesDurable holds pi's store to frameproof's promise
// (acknowledged is durable): it must fail, and the failures are the
// finding's evidence. Run with -v to see them.
func TestPiJSONLCrashImagesDurable(t *testing.T) {
	d := startDriver(t, "")
	st, err := Sweep(t.Context(), d, Config{Seed: 1, Workloads: 1, Expect: ExpectDurable})
	require.NoError(t, err)
	logStats(t, "pi jsonl crash sweep, durable expectation", st)
	require.NotEmpty(t, st.Failures, "pi's store met frameproof's durability promise: has pi started to fsync?")
	for _, f := range st.Failures[:min(3, len(st.Failures))] {
		t.Logf("violation: %s", firstLine(f))
	}
}

// TestPiCrashCheckerCatchesBrokenDrivers is the checker's mutation test:
// crash-driver.mjs --mutate breaks the store around pi's unmodified code,
// and the sweep under ExpectPi must fail. tear-on-open cuts the last whole
// line in half before pi reads the file (a committed line dropped as a torn
// tail, the file repaired without it); drop-append acknowledges the second
// append without writing it.
func TestPiCrashCheckerCatchesBrokenDrivers(t *testing.T) {
	for mutate, rule := range map[string]string{
		"tear-on-open": "commit lines, the image holds", // the exact-lines rule
		"drop-append":  "not an allowed commit prefix",  // crash.Oracle
	} {
		t.Run(mutate, func(t *testing.T) {
			d := startDriver(t, mutate)
			st, err := Sweep(t.Context(), d, Config{Seed: 1, Workloads: 2, Expect: ExpectPi})
			require.NoError(t, err)
			require.NotEmpty(t, st.Failures, "the checker passed a broken driver")
			assert.Contains(t, st.Failures[0], rule)
			t.Logf("%s caught: %d failures, first: %s", mutate, len(st.Failures), firstLine(st.Failures[0]))
		})
	}
}

// TestPiJSONLLosesAcknowledgedCommits pins the two losses of
// docs/PI-FINDINGS.md ("pi's JSONL store loses acknowledged commits on
// power loss") on one small session, each with one crash decision:
//
//  1. create and one acknowledged commit, then a power loss that keeps the
//     namespace (the create's rename) and none of the unsynced data: the
//     file is empty and JsonlStorage.open refuses it ("missing header");
//  2. the same session's file durable on disk with a torn tail, opened by
//     pi (which repairs it: writeFile <path>.tmp, renameFile over <path>,
//     no fsync), then a power loss that keeps the rename and not the .tmp
//     data: the durable session is gone, and open refuses what is left.
func TestPiJSONLLosesAcknowledgedCommits(t *testing.T) {
	d := startDriver(t, "")
	commit := crash.ToStore([]mstore.Write{{Kind: mstore.Value, Op: mstore.Set, Addr: mstore.Addr{Namespace: "a", Key: "k1"}, Value: `{"w":"1"}`}})
	run, err := d.Run(SessionPath, [][]store.Write{commit})
	require.NoError(t, err)
	require.True(t, run.Commits[0].OK, "pi acknowledges the commit")
	for _, op := range run.Log {
		t.Logf("pi's file operation: %s %s %s (%d bytes)", op.Op, op.Path, op.To, len(op.Data))
	}

	// 1. Keep every namespace operation, no data operation.
	fsys := faults.NewFSWith(choice.Fixed(0), faults.AllFaults)
	replay(fsys, run.Log)
	whole, _ := fsys.ReadFile(SessionPath)
	keepNames := forced{c: choice.Fixed(0), force: map[string]int{"crash: journal ops kept": 99, "crash: ops kept of ": 0}}
	rep := fsys.CrashInMode(keepNames, faults.ModePrefix)
	img, err := fsys.ReadFile(SessionPath)
	require.NoError(t, err, "the file exists")
	require.Empty(t, img, "crash %s", rep)
	img = []byte{} // present, empty (nil is absent to OpenAll)
	res, err := d.OpenAll(SessionPath, [][]byte{img})
	require.NoError(t, err)
	require.False(t, res[0].OK)
	assert.Equal(t, "Invalid JSONL storage /data/session.jsonl: missing header", res[0].Error)
	t.Logf("1. after an acknowledged commit, crash %s: file %q; pi's open: %s", rep, img, res[0].Error)

	// 2. The whole session durable, plus a torn tail; pi opens and repairs.
	torn := append(append([]byte(nil), whole...), `{"kind":"val`...)
	res, err = d.OpenAll(SessionPath, [][]byte{torn})
	require.NoError(t, err)
	require.True(t, res[0].OK, "pi opens a torn tail: %s", res[0].Error)
	require.Equal(t, string(whole), string(res[0].Files[SessionPath]), "pi repairs the tail")
	require.Len(t, res[0].State.Values, 1)
	fsys = faults.NewFSWith(choice.Fixed(0), faults.AllFaults)
	fsys.WriteDurable(SessionPath, torn)
	replay(fsys, res[0].Log)
	rep = fsys.CrashInMode(keepNames, faults.ModePrefix)
	img, err = fsys.ReadFile(SessionPath)
	require.NoError(t, err, "the file exists")
	require.Empty(t, img, "crash %s", rep)
	img = []byte{}
	res, err = d.OpenAll(SessionPath, [][]byte{img})
	require.NoError(t, err)
	require.False(t, res[0].OK, "file %q", img)
	assert.Equal(t, "Invalid JSONL storage /data/session.jsonl: missing header", res[0].Error)
	t.Logf("2. durable session %q, opened by pi, crash %s: file %q; pi's open: %s", torn, rep, img, res[0].Error)
}
