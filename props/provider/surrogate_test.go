package provider

import (
	"regexp"
	"testing"

	"github.com/frameproof/frameproof/impl/pi"
	impl "github.com/frameproof/frameproof/impl/provider"
	"github.com/stretchr/testify/require"
)

var loneEscape = regexp.MustCompile(`\\ud[89ab][0-9a-f]{2}"`) // a high surrogate ending a JSON string

// On the wires that can carry them, the generator splits deltas inside
// surrogate pairs, and the Go adapter still keeps the contract, the truth
// and the codec round trip; on Gemini it never does.
func TestDeltasSplitSurrogatePairs(t *testing.T) {
	for _, wire := range impl.Wires {
		found := 0
		for seed := 0; seed < 400; seed++ {
			sc := GenScenario(wire).Example(seed)
			rd, err := Render(sc)
			require.NoError(t, err)
			if !loneEscape.Match(rd.Body) {
				continue
			}
			found++
			res, err := RunRendered(GoSubject{}, sc, rd)
			require.NoError(t, err)
			require.Empty(t, res.Violations, "%s seed %d", wire, seed)
			lone := false
			for _, e := range res.PiEvents {
				if e.Type == pi.EventTextDelta || e.Type == pi.EventThinkingDelta {
					lone = lone || hasLoneSurrogate(e.Delta)
				}
			}
			require.True(t, lone, "%s seed %d: the wire split a pair but no delta holds a lone surrogate", wire, seed)
		}
		if wire == impl.WireGemini {
			require.Zero(t, found, "gemini cannot carry lone surrogates")
		} else {
			require.NotZero(t, found, "%s: no delta split a surrogate pair in 400 seeds", wire)
		}
		t.Logf("%s: %d/400 streams split a surrogate pair", wire, found)
	}
}
