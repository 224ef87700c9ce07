package codec

import (
	"encoding/json"
	"testing"

	"github.com/frameproof/frameproof/impl/frames"
	"github.com/frameproof/frameproof/impl/pi"
	"github.com/frameproof/frameproof/props/peer"
	"github.com/stretchr/testify/require"
)

// diffStream runs one stream through pi-ai and the Go port and requires
// byte-identical frames (from Encode and from AppendFrame), reduced
// messages and error messages.
func diffStream(t *testing.T, p *peer.Peer, s Stream, label string) {
	t.Helper()
	raw := make([]json.RawMessage, len(s.Events))
	for i, ev := range s.Events {
		raw[i] = ev.AppendJSON(nil)
	}
	peerFrames, errIndex, errMsg, err := p.Encode(raw)
	require.NoError(t, err, label)

	enc := newTwin()
	var goFrames, appended []json.RawMessage
	var reduced []pi.Frame
	goErrIndex, goErrMsg := -1, ""
	for i, ev := range s.Events {
		f, err := enc.Encode(t, ev)
		if err != nil {
			goErrIndex, goErrMsg = i, err.Error()
			break
		}
		appended = append(appended, json.RawMessage(enc.Last()))
		if f == nil {
			goFrames = append(goFrames, json.RawMessage("null"))
			continue
		}
		goFrames = append(goFrames, f.AppendJSON(nil))
		reduced = append(reduced, *f)
	}
	require.Equal(t, errMsg, goErrMsg, "%s: error message", label)
	require.Equal(t, errIndex, goErrIndex, "%s: error index", label)
	require.Equal(t, len(peerFrames), len(goFrames), "%s: frame count", label)
	var nonNull []json.RawMessage
	for i := range peerFrames {
		require.Equal(t, string(peerFrames[i]), string(goFrames[i]), "%s: frame for event %d %s", label, i, raw[i])
		require.Equal(t, string(peerFrames[i]), string(appended[i]), "%s: AppendFrame for event %d %s", label, i, raw[i])
		if string(peerFrames[i]) != "null" {
			nonNull = append(nonNull, peerFrames[i])
		}
	}
	peerMsg, peerErr, err := p.Reduce(nonNull)
	require.NoError(t, err, label)
	goMsg, goErr := frames.Reduce(reduced)
	require.Equal(t, peerErr, errString(goErr), "%s: reduce error", label)
	require.Equal(t, string(peerMsg), marshalMsg(goMsg), "%s: reduced message", label)
}

func TestStreamsMatchPiAI(t *testing.T) {
	p := peer.Open(t)
	n := 2000
	if testing.Short() {
		n = 200
	}
	for seed := 0; seed < n; seed++ {
		diffStream(t, p, GenStream().Example(seed), "valid seed "+itoa(seed))
	}
	for seed := 0; seed < n/4; seed++ {
		diffStream(t, p, GenLongStream().Example(seed), "long seed "+itoa(seed))
	}
	for seed := 0; seed < n/2; seed++ {
		diffStream(t, p, GenInvalidStream().Example(seed), "invalid seed "+itoa(seed))
	}
	t.Logf("%d valid, %d long and %d invalid streams compared", n, n/4, n/2)
}

func itoa(n int) string { return string(pi.AppendNumber(nil, float64(n))) }
