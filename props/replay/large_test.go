package replay

import (
	"bytes"
	"errors"
	"fmt"
	"testing"

	"github.com/frameproof/frameproof/impl/pi"
	impl "github.com/frameproof/frameproof/impl/replay"
	model "github.com/frameproof/frameproof/model/replay"
)

// agree fails t unless impl's projection of msgs equals the model's, byte
// for byte (or both have nothing to send).
func agree(t *testing.T, name string, msgs []pi.Appender, target impl.Target, p *impl.Principal) {
	t.Helper()
	got, err := impl.Project(msgs, target, impl.Options{Principal: p})
	want, merr := model.Project(msgs, modelTarget(target), modelPrincipal(p))
	switch {
	case errors.Is(merr, model.ErrNothingToSend) && errors.Is(err, impl.ErrNothingToSend):
		return
	case errors.Is(merr, model.ErrNothingToSend):
		t.Fatalf("%s: model has nothing to send, impl: %v", name, err)
	case merr != nil:
		t.Fatalf("%s: model: %v", name, merr)
	case err != nil:
		t.Fatalf("%s: impl: %v", name, err)
	}
	if !bytes.Equal(got, want) {
		at := 0
		for at < len(got) && at < len(want) && got[at] == want[at] {
			at++
		}
		lo := max(0, at-200)
		t.Fatalf("%s: impl and model differ at byte %d of %d/%d\nimpl:  …%s\nmodel: …%s", name, at, len(got), len(want),
			got[lo:min(len(got), at+200)], want[lo:min(len(want), at+200)])
	}
}

// TestProjectionLargeTranscripts: the projection keeps its bytes at sizes
// the rapid properties never reach (the model is quadratic, which bounds
// the sizes here to a few thousand messages). Large transcripts — the benchmark's, and
// long crash-damaged ones drawn from the property's generator — project on
// every wire exactly as the independent model projects them, so the
// projection's arenas and streaming writer (built for speed) cannot drift
// from the semantics as transcripts grow.
func TestProjectionLargeTranscripts(t *testing.T) {
	n, seeds, rounds := 1_500, 12, 300
	if testing.Short() {
		n, seeds, rounds = 500, 4, 100
	}
	principal := &impl.Principal{Agent: "a", UID: 1000, Account: "ai", ExpectedAccount: "ai", Node: "n"}
	bench := LargeTranscript(n)
	for _, w := range impl.Wires {
		for _, tg := range []impl.Target{
			{Wire: w, Provider: "p", Model: "m"},
			{Wire: w, Provider: "p", Model: "other"},
			{Wire: w, Provider: "anthropic", Model: "gemini-3-pro", Vision: true},
		} {
			agree(t, fmt.Sprintf("LargeTranscript(%d) %+v", n, tg), bench, tg, nil)
			agree(t, fmt.Sprintf("LargeTranscript(%d) %+v with principal", n, tg), bench, tg, principal)
		}
	}
	for seed := 0; seed < seeds; seed++ {
		target := TargetGen().Example(seed)
		msgs := TranscriptGen(target, rounds).Example(seed)
		agree(t, fmt.Sprintf("seed %d: %d messages, %+v", seed, len(msgs), target), msgs, target, PrincipalGen().Example(seed))
	}
}
