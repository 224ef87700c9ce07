package pisubject

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/frameproof/frameproof/props/peer"
	"github.com/frameproof/frameproof/sim/choice"
	"github.com/frameproof/frameproof/sim/lanesim"
	"github.com/frameproof/frameproof/sim/subject"
)

func runSeed(t *testing.T, dir string, sc subject.Scenario, session subject.Session, seed uint64, env ...string) subject.Outcome {
	t.Helper()
	c := New(Options{Dir: dir, Env: env})
	return subject.Run(c, sc, choice.NewSeeded(seed), subject.Options{Session: session, Dir: t.TempDir()})
}

func scenario(t *testing.T, name string) subject.Scenario {
	t.Helper()
	sc, ok := subject.ScenarioByName(name)
	if !ok {
		t.Fatalf("no scenario %s", name)
	}
	return sc
}

// TestPiSubjectSeeds is the CI slice of `frameproof sim --subject pi`:
// two seeds of every scenario on pi's JSONL session and one on its memory
// session, every committed transaction compared with model/lane, and the
// race orders the slice is known to reach reached.
func TestPiSubjectSeeds(t *testing.T) {
	dir := peer.Require(t, peer.PiAgentCore)
	rep := subject.Report{Coverage: map[string]map[string]int{}}
	for _, cell := range []struct {
		session subject.Session
		seeds   int
	}{{subject.SessionJSONL, 2}, {subject.SessionMemory, 1}} {
		r, err := subject.Campaign(subject.CampaignOptions{Subject: "pi", Seeds: cell.seeds, FirstSeed: 1, TempDir: t.TempDir(),
			Sessions: []subject.Session{cell.session},
			New:      func() (subject.Subject, error) { return New(Options{Dir: dir}), nil }})
		if err != nil {
			t.Fatal(err)
		}
		rep.Runs += r.Runs
		rep.TXCompared += r.TXCompared
		rep.InvariantChecks += r.InvariantChecks
		rep.Failures = append(rep.Failures, r.Failures...)
		for row, orders := range r.Coverage {
			if rep.Coverage[row] == nil {
				rep.Coverage[row] = map[string]int{}
			}
			for o, n := range orders {
				rep.Coverage[row][o] += n
			}
		}
	}
	for _, f := range rep.Failures {
		t.Errorf("%s/%s seed %d: %s: %s\nreproduce: %s", f.Outcome.Scenario, f.Outcome.Session, f.Seed, f.Outcome.Kind, f.Outcome.Message, f.Repro)
	}
	if rep.TXCompared < 10*rep.Runs {
		t.Errorf("only %d transactions compared over %d runs", rep.TXCompared, rep.Runs)
	}
	if rep.InvariantChecks < rep.TXCompared {
		t.Errorf("only %d invariant checks for %d transactions compared", rep.InvariantChecks, rep.TXCompared)
	}
	for _, want := range [][2]string{
		{lanesim.RowAppendNext, lanesim.OrderCommittedBeforeNext}, {lanesim.RowAppendNext, lanesim.OrderNextQueuedBehind},
		{lanesim.RowAppendSettle, lanesim.OrderSettlementAwaitsAppends}, {lanesim.RowQueuedLoss, lanesim.OrderQueuedLost},
		{lanesim.RowFinalFrame, lanesim.OrderSettledInProcess},
		{lanesim.RowUnknownRetry, lanesim.OrderSyntheticThenRetry}, {lanesim.RowUnknownRetry, lanesim.OrderSyntheticThenFailAtCap},
		{lanesim.RowCloseSettle, lanesim.OrderSettleFirst},
		{lanesim.RowActivationSnap, lanesim.OrderSnapshotFirst}, {lanesim.RowActivationSnap, lanesim.OrderActivationFirst},
		{lanesim.RowPollReplacement, lanesim.OrderSuspendedWithoutPermit}, {lanesim.RowPollReplacement, lanesim.OrderReplacedAtOnce},
	} {
		if rep.Coverage[want[0]][want[1]] == 0 {
			t.Errorf("the slice no longer reaches %s/%s", want[0], want[1])
		}
	}
}

// TestPiSubjectSameSeedSameTrace: pi's scheduling is the driver's
// (quiescence between every step, virtual clock, driver ids), so a seed's
// trace repeats.
func TestPiSubjectSameSeedSameTrace(t *testing.T) {
	dir := peer.Require(t, peer.PiAgentCore)
	sc := scenario(t, "process-loss")
	a := runSeed(t, dir, sc, subject.SessionJSONL, 3)
	b := runSeed(t, dir, sc, subject.SessionJSONL, 3)
	if strings.Join(a.Trace, "\n") != strings.Join(b.Trace, "\n") {
		t.Errorf("seed 3 gave two traces:\n%s\n---\n%s", strings.Join(a.Trace, "\n"), strings.Join(b.Trace, "\n"))
	}
}

// TestPlantedDriverBugIsCaught: a driver that reports a committed
// transaction without one of its writes (a defect in the protocol layer,
// pi untouched) fails the run as a model mismatch.
func TestPlantedDriverBugIsCaught(t *testing.T) {
	dir := peer.Require(t, peer.PiAgentCore)
	out := runSeed(t, dir, scenario(t, "append-race"), subject.SessionJSONL, 1, PlantEnv+"="+PlantDropWrite)
	if !out.Failed || out.Kind != "model-mismatch" {
		t.Fatalf("planted %s: failed=%t kind=%q, want a model-mismatch\n%s", PlantDropWrite, out.Failed, out.Kind, out.Message)
	}
	if !strings.Contains(out.Message, "transaction writes differ") {
		t.Errorf("the mismatch does not name the transaction: %s", out.Message)
	}
}

// TestPlantedStateBugIsCaught: a driver that reports a settlement without
// its frame-list delete describes a committed state where a settled
// response keeps its frames; sim/invariants, run on every committed
// transaction, rejects it (invariant 8) before the lockstep compares the
// transaction — the invariant check on pi's commits is live.
func TestPlantedStateBugIsCaught(t *testing.T) {
	dir := peer.Require(t, peer.PiAgentCore)
	for _, session := range subject.Sessions {
		out := runSeed(t, dir, scenario(t, "append-race"), session, 1, PlantEnv+"="+PlantKeepFrames)
		if !out.Failed || out.Kind != "invariant" || !strings.Contains(out.Message, "invariant 8") {
			t.Errorf("%s: planted %s: failed=%t kind=%q, want invariant 8 violated\n%s", session, PlantKeepFrames, out.Failed, out.Kind, out.Message)
		}
	}
}

// TestPiSubjectRelease0871: pi-agent-core 0.87.1 as the subject (the
// driver loads it with --pi) agrees with model/lane under its release's
// option — pi's runtime/drive/boundary.js normalizedRetryPolicy stores
// pi-ai's 60000 ms cap in every retry policy — and without the option the
// first intent's generation context differs.
func TestPiSubjectRelease0871(t *testing.T) {
	dir := peer.Require(t, peer.PiAgentCore)
	peer.Require(t, peer.PiAgentCore0871)
	piDir, run, err := Release("0.87.1")
	if err != nil {
		t.Fatal(err)
	}
	sc := scenario(t, "retry")
	for _, withOption := range []bool{true, false} {
		opts := run
		if !withOption {
			opts.StoredDelayCap = nil
		}
		opts.Session, opts.Dir = subject.SessionJSONL, t.TempDir()
		c := New(Options{Dir: dir, Pi: piDir, Version: "0.87.1"})
		out := subject.Run(c, sc, choice.NewSeeded(1), opts)
		switch {
		case withOption && out.Failed:
			t.Errorf("0.87.1 under its option: %s: %s", out.Kind, out.Message)
		case !withOption && (!out.Failed || !strings.Contains(out.Message, "maxAgentDelayMs")):
			t.Errorf("0.87.1 without its option: failed=%t %s, want a mismatch naming maxAgentDelayMs", out.Failed, out.Message)
		}
	}
}

// TestDebugSeed runs one seed and prints its trace:
// FRAMEPROOF_SUBJECT_SEED=N FRAMEPROOF_SUBJECT_SCENARIO=NAME
// FRAMEPROOF_SUBJECT_SESSION=jsonl|memory go test ./props/pisubject -run TestDebugSeed -v
func TestDebugSeed(t *testing.T) {
	s := os.Getenv("FRAMEPROOF_SUBJECT_SEED")
	if s == "" {
		t.Skip("set FRAMEPROOF_SUBJECT_SEED")
	}
	dir := peer.Require(t, peer.PiAgentCore)
	seed, _ := strconv.ParseUint(s, 10, 64)
	sc := scenario(t, os.Getenv("FRAMEPROOF_SUBJECT_SCENARIO"))
	out := runSeed(t, dir, sc, subject.Session(os.Getenv("FRAMEPROOF_SUBJECT_SESSION")), seed)
	t.Logf("trace:\n%s", strings.Join(out.Trace, "\n"))
	t.Logf("outcome: failed=%t kind=%s tx=%d races=%v divergences=%v\n%s", out.Failed, out.Kind, out.TXCompared, out.Races, out.Divergences, out.Message)
}

// TestPiSubjectCloseFirst: Harness.close while pi's operation is at
// effect_pending (pi's runtime/harness.ts close seals the lane, whose
// active drive admits no more commits): the commits parked then land,
// nothing later does, and the reopened process recovers the response —
// every transaction compared with model/lane, whose Close is a crash.
func TestPiSubjectCloseFirst(t *testing.T) {
	dir := peer.Require(t, peer.PiAgentCore)
	sc := scenario(t, "close-settle")
	for seed := uint64(1); seed <= 12; seed++ {
		o := runSeed(t, dir, sc, subject.SessionJSONL, seed)
		if o.Failed {
			t.Fatalf("seed %d: %s: %s", seed, o.Kind, o.Message)
		}
		if o.Races[lanesim.RowCloseSettle][lanesim.OrderCloseFirst] {
			return
		}
	}
	t.Fatal("no seed of 1..12 closed pi at effect_pending")
}
