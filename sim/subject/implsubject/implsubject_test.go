package implsubject

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/frameproof/frameproof/impl/pi"
	"github.com/frameproof/frameproof/sim/choice"
	"github.com/frameproof/frameproof/sim/subject"
)

func campaign(t *testing.T, seeds int, opts Options) subject.Report {
	t.Helper()
	rep, err := subject.Campaign(subject.CampaignOptions{Subject: "lane", Seeds: seeds, FirstSeed: 1, TempDir: t.TempDir(),
		New: func() (subject.Subject, error) { return New(opts), nil }})
	require.NoError(t, err)
	return rep
}

// The subject campaign on impl/lane, every scenario over both sessions:
// every committed transaction matches model/lane's, write by write, the
// events and snapshots match, and every order the boundary can express is
// reached.
func TestCampaignMatchesModel(t *testing.T) {
	seeds := 10
	if testing.Short() {
		seeds = 4
	}
	rep := campaign(t, seeds, Options{})
	for _, f := range rep.Failures {
		t.Errorf("%s/%s seed %d (%s): %s\n  reproduce: %s", f.Outcome.Scenario, f.Outcome.Session, f.Seed, f.Outcome.Kind, f.Outcome.Message, f.Repro)
	}
	require.Equal(t, seeds*len(subject.Scenarios)*len(subject.Sessions), rep.Runs)
	require.Greater(t, rep.TXCompared, 20*rep.Runs, "runs compare their transactions")
	require.Empty(t, rep.Unreached(), "orders no run took")
	require.Empty(t, rep.Divergences, "no decided difference is needed on impl/lane")
}

// The boundary catches a defect on this subject: the adapter reporting one
// transaction without its last write fails the campaign with a write-list
// mismatch in every cell (each run's lane creation has three writes).
func TestCampaignCatchesPlantedDefect(t *testing.T) {
	rep := campaign(t, 1, Options{Plant: PlantDropWrite})
	require.Len(t, rep.Failures, len(subject.Scenarios)*len(subject.Sessions))
	for _, f := range rep.Failures {
		require.Equal(t, "model-mismatch", f.Outcome.Kind, f.Outcome.Message)
		require.Contains(t, f.Outcome.Message, "transaction writes differ from model/lane's")
	}
}

// Same seed, same trace: each scenario on each session, run twice from one
// seed on fresh subjects, prints the same trace (ids and times renamed by
// first appearance) and the same verdict.
func TestSameSeedSameTrace(t *testing.T) {
	for _, sc := range subject.Scenarios {
		for _, session := range subject.Sessions {
			var traces [2]string
			for i := range traces {
				out := subject.Run(New(Options{}), sc, choice.NewSeeded(7), subject.Options{Session: session, Dir: t.TempDir()})
				require.False(t, out.Failed, "%s/%s: %s", sc.Name, session, out.Message)
				traces[i] = strings.Join(out.Trace, "\n")
			}
			require.Contains(t, traces[0], "\ncommitted ", "%s/%s: a trace of commits", sc.Name, session)
			require.Equal(t, traces[0], traces[1], "%s/%s: one seed, two traces", sc.Name, session)
		}
	}
}

// The release options reach the lane: impl/lane under one release's
// option and model/lane under another's fail the retry scenario — pi
// 0.87.1's stored retry-delay cap against 0.85.1's none, pi-ai 0.85.1's
// retry patterns against 1.0.3's ("520" retried by one only) — and under
// the same release both agree.
func TestReleaseOptionsReachTheLane(t *testing.T) {
	retry, ok := subject.ScenarioByName("retry")
	require.True(t, ok)
	run := func(lane Options, model subject.Options) subject.Report {
		rep, err := subject.Campaign(subject.CampaignOptions{Subject: "lane", Seeds: 10, FirstSeed: 1, TempDir: t.TempDir(),
			Scenarios: []subject.Scenario{retry}, Run: model,
			New: func() (subject.Subject, error) { return New(lane), nil }})
		require.NoError(t, err)
		return rep
	}
	cap0871 := 60_000.0
	for _, c := range []struct {
		name  string
		lane  Options
		model subject.Options
	}{
		{"stored delay cap", Options{StoredDelayCap: &cap0871}, subject.Options{StoredDelayCap: &cap0871}},
		{"error patterns", Options{ErrorPatterns: pi.AI0851}, subject.Options{ErrorPatterns: pi.AI0851}},
	} {
		mixed := run(c.lane, subject.Options{})
		require.NotEmpty(t, mixed.Failures, "%s: the lane's option never showed", c.name)
		same := run(c.lane, c.model)
		require.Empty(t, same.Failures, "%s: under one release", c.name)
	}
}
