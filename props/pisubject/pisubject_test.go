package pisubject

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/frameproof/frameproof/props/peer"
	"github.com/frameproof/frameproof/sim/choice"
	"github.com/frameproof/frameproof/sim/subject"
)

func runSeed(t *testing.T, dir string, sc subject.Scenario, session subject.Session, seed uint64, env ...string) subject.Outcome {
	t.Helper()
	c := New(Options{Dir: dir, Env: env})
	return subject.Run(c, sc, choice.NewSeeded(seed), subject.Options{Session: session, Dir: t.TempDir()})
}

// TestDebugSeed runs one seed and prints its trace (FRAMEPROOF_SUBJECT_SEED).
func TestDebugSeed(t *testing.T) {
	s := os.Getenv("FRAMEPROOF_SUBJECT_SEED")
	if s == "" {
		t.Skip("set FRAMEPROOF_SUBJECT_SEED")
	}
	dir := peer.Require(t, peer.PiAgentCore)
	seed, _ := strconv.ParseUint(s, 10, 64)
	sc, _ := subject.ScenarioByName(os.Getenv("FRAMEPROOF_SUBJECT_SCENARIO"))
	session := subject.Session(os.Getenv("FRAMEPROOF_SUBJECT_SESSION"))
	out := runSeed(t, dir, sc, session, seed)
	t.Logf("trace:\n%s", strings.Join(out.Trace, "\n"))
	t.Logf("outcome: failed=%t kind=%s tx=%d races=%v\n%s", out.Failed, out.Kind, out.TXCompared, out.Races, out.Message)
}
