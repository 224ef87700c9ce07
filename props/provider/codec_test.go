package provider

import (
	"encoding/json"
	"testing"

	"github.com/frameproof/frameproof/impl/frames"
	"github.com/frameproof/frameproof/impl/pi"
	impl "github.com/frameproof/frameproof/impl/provider"
	"github.com/frameproof/frameproof/props/peer"
	"github.com/stretchr/testify/require"
)

// dropFrame is a broken encoder: it loses the first delta frame.
type dropFrame struct {
	enc     *frames.Encoder
	dropped bool
}

func (d *dropFrame) Encode(ev *pi.Event) (*pi.Frame, error) {
	f, err := d.enc.Encode(ev)
	if f != nil && !d.dropped && (f.Type == pi.FrameTextDelta || f.Type == pi.FrameThinkingDelta || f.Type == pi.FrameToolCallDelta) {
		d.dropped = true
		return nil, err
	}
	return f, err
}

// altered is a broken encoder: it changes the bytes of the first text delta
// frame (one more character).
type altered struct {
	enc  *frames.Encoder
	done bool
}

func (a *altered) Encode(ev *pi.Event) (*pi.Frame, error) {
	f, err := a.enc.Encode(ev)
	if f != nil && !a.done && f.Type == pi.FrameTextDelta {
		a.done = true
		g := *f
		g.Delta += "x"
		return &g, err
	}
	return f, err
}

func rulesOf(vs []Violation) map[string]bool {
	out := map[string]bool{}
	for _, v := range vs {
		out[v.Rule] = true
	}
	return out
}

// The codec round trip holds on the Go adapters' events, and pi-ai's
// encoder gives byte-identical frames for them (and for pi-ai's providers'
// events: see TestPiAIProviders).
func TestCodecPeerIdenticalOnGoAdapters(t *testing.T) {
	p := peer.Open(t)
	n := 60
	if testing.Short() {
		n = 12
	}
	for _, wire := range impl.Wires {
		for seed := 0; seed < n; seed++ {
			res, err := RunScenarioWith(GoSubject{}, GenScenario(wire).Example(seed), RunOptions{Peer: p})
			require.NoError(t, err)
			require.Empty(t, res.Violations, "%s seed %d", wire, seed)
		}
	}
}

// Mutation: an encoder that drops one frame is caught by codec-round-trip.
func TestCodecRoundTripCatchesDroppedFrame(t *testing.T) {
	for seed := 0; seed < 200; seed++ {
		res, err := RunScenarioWith(GoSubject{}, GenScenario(impl.WireAnthropic).Example(seed),
			RunOptions{NewEncoder: func() FrameEncoder { return &dropFrame{enc: frames.NewEncoder()} }})
		require.NoError(t, err)
		if rulesOf(res.Violations)[RuleCodecRoundTrip] {
			return
		}
	}
	t.Fatal("a dropped frame was never caught by codec-round-trip")
}

// Mutation: a frame whose bytes differ from pi-ai's is caught by
// codec-peer-identical (with the round trip switched off, so the peer
// verdict alone must see it).
func TestCodecPeerCatchesByteDifference(t *testing.T) {
	p := peer.Open(t)
	for seed := 0; seed < 200; seed++ {
		res, err := RunScenarioWith(GoSubject{}, GenScenario(impl.WireOpenAIChat).Example(seed),
			RunOptions{NoCodec: true, Peer: p, NewEncoder: func() FrameEncoder { return &altered{enc: frames.NewEncoder()} }})
		require.NoError(t, err)
		if rulesOf(res.Violations)[RuleCodecPeerIdentical] {
			return
		}
	}
	t.Fatal("an altered frame was never caught by codec-peer-identical")
}

// ComparePeerFrames itself, without node: equal outputs pass; one byte,
// a missing frame or a different error each fail.
func TestComparePeerFrames(t *testing.T) {
	fr := func(s ...string) []json.RawMessage {
		var out []json.RawMessage
		for _, x := range s {
			out = append(out, json.RawMessage(x))
		}
		return out
	}
	a := fr(`{"type":"start"}`, `null`, `{"type":"text_delta","contentIndex":0,"delta":"a"}`)
	require.Empty(t, ComparePeerFrames(a, -1, "", a, -1, ""))
	b := fr(`{"type":"start"}`, `null`, `{"type":"text_delta","contentIndex":0,"delta":"b"}`)
	require.Equal(t, 2, ComparePeerFrames(a, -1, "", b, -1, "")[0].Event)
	require.NotEmpty(t, ComparePeerFrames(a[:2], -1, "", a, -1, ""))
	require.NotEmpty(t, ComparePeerFrames(a[:2], 2, "boom", a[:2], 2, "bang"))
}
