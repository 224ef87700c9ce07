package lanesim

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/frameproof/frameproof/sim/campaign"
	"github.com/frameproof/frameproof/sim/choice"
)

// The structural actor really runs: structural generations return and are
// checked beside ordinary generation, on every backend, including runs in
// which a crash killed a structural stream.
func TestStructuralGenerationIsExercised(t *testing.T) {
	seeds := uint64(10)
	if testing.Short() {
		seeds = 5
	}
	for _, name := range []string{"structural-generation", "mix"} {
		sc, ok := ScenarioByName(name)
		require.True(t, ok)
		for _, be := range Backends() {
			total, crashed := 0, 0
			for seed := uint64(0); seed < seeds; seed++ {
				out := sc.Run(choice.NewSeeded(seed), Options{Backend: be, TempDir: t.TempDir()})
				require.False(t, out.Failed, "%s/%s seed %d: %s: %s", name, be, seed, out.Kind, out.Message)
				total += out.Structural
				for _, f := range out.Faults {
					if len(f) > 38 && f[:38] == "crash during structural generation of " {
						crashed++
					}
				}
			}
			require.Positive(t, total, "%s/%s: no structural generation returned in %d seeds", name, be, seeds)
			if name == "structural-generation" {
				require.Positive(t, crashed, "%s/%s: no crash hit a structural stream in %d seeds", name, be, seeds)
			}
			t.Logf("%s/%s: %d structural generations checked, %d crashes aimed at structural streams, %d seeds", name, be, total, crashed, seeds)
		}
	}
}

// Invariant 11 can fail: a structural path that appends a frame at its
// pendingAssistantFrames address is rejected as an invariant-11 violation.
func TestStructuralMutantFailsInvariant11(t *testing.T) {
	defer func() { structuralMutant = false }()
	for _, name := range []string{"structural-generation", "mix"} {
		sc, _ := ScenarioByName(name)
		caught := 0
		for seed := uint64(0); seed < 10; seed++ {
			structuralMutant = false
			clean := sc.Run(choice.NewSeeded(seed), Options{})
			require.False(t, clean.Failed, "%s seed %d fails without the mutant: %s", name, seed, clean.Message)
			structuralMutant, structuralMutantLanded = true, 0
			out := sc.Run(choice.NewSeeded(seed), Options{})
			if !out.Failed {
				require.Zero(t, structuralMutantLanded, "%s seed %d: the mutant's frame committed but the run passed", name, seed)
				continue
			}
			require.Equal(t, campaign.KindInvariant, out.Kind, "%s seed %d: %s", name, seed, out.Message)
			require.Contains(t, out.Message, "invariant 11 (structural generation never writes a frame list)", "%s seed %d", name, seed)
			caught++
		}
		require.Positive(t, caught, "%s: the mutant was never caught", name)
	}
}
