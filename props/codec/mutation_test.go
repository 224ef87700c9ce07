package codec

import (
	"testing"

	"github.com/frameproof/frameproof/impl/frames"
	"github.com/frameproof/frameproof/impl/pi"
	modelframes "github.com/frameproof/frameproof/model/frames"
	"github.com/stretchr/testify/require"
)

// TestObservedCheckRejectsBrokenEncoders shows the property-1 comparison
// failing for deliberately broken encoders: one that drops the first
// non-empty delta frame, and one that re-sends covered text.
func TestObservedCheckRejectsBrokenEncoders(t *testing.T) {
	caughtDrop, caughtResend := 0, 0
	for seed := 0; seed < 200; seed++ {
		s := GenStream().Example(seed)
		enc := frames.NewEncoder()
		obs := modelframes.NewObserver()
		var dropped, resent []pi.Frame
		dropDone := false
		for _, ev := range s.Events {
			f, err := enc.Encode(ev)
			require.NoError(t, err)
			obs.Observe(ev)
			if f != nil {
				if !dropDone && f.Type == pi.FrameTextDelta {
					dropDone = true
				} else {
					dropped = append(dropped, *f)
				}
				resent = append(resent, *f)
			} else if ev.Type == pi.EventTextDelta && ev.Delta != "" {
				resent = append(resent, pi.Frame{Type: pi.FrameTextDelta, ContentIndex: ev.ContentIndex, Delta: ev.Delta})
			}
		}
		want := marshalMsg(obs.Message())
		if m, err := frames.Reduce(dropped); err != nil || marshalMsg(m) != want {
			caughtDrop++
		}
		if m, err := frames.Reduce(resent); err != nil || marshalMsg(m) != want {
			caughtResend++
		}
	}
	require.Positive(t, caughtDrop)
	require.Positive(t, caughtResend)
}
