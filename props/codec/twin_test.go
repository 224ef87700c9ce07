package codec

import (
	"testing"

	"github.com/frameproof/frameproof/impl/frames"
	"github.com/frameproof/frameproof/impl/pi"
	"github.com/stretchr/testify/require"
)

// twinEncoder runs the encoder's two APIs side by side on one stream:
// Encode (a *pi.Frame, serialized with AppendJSON) and AppendFrame (the
// frame's JSON appended to a reused buffer). Every property that encodes
// through a twin checks, after every event, that both APIs give the same
// error and the same bytes, so each property covers both.
type twinEncoder struct {
	enc, app *frames.Encoder
	buf      []byte // AppendFrame's output for the last event
}

func newTwin() *twinEncoder {
	return &twinEncoder{enc: frames.NewEncoder(), app: frames.NewEncoder(), buf: make([]byte, 0, 256)}
}

// Encode is Encode on the first encoder; it requires AppendFrame on the
// second to agree, and keeps its bytes for Last.
func (tw *twinEncoder) Encode(t require.TestingT, ev *pi.Event) (*pi.Frame, error) {
	if h, ok := t.(interface{ Helper() }); ok {
		h.Helper()
	}
	f, err := tw.enc.Encode(ev)
	out, framed, appErr := tw.app.AppendFrame(tw.buf[:0], ev)
	require.Equal(t, errString(err), errString(appErr), "AppendFrame's error differs from Encode's on %s", ev.Type)
	require.Equal(t, f != nil, framed, "AppendFrame framed %v, Encode gave frame %v, on %s", framed, f != nil, ev.Type)
	tw.buf = out
	if f != nil {
		require.Equal(t, string(f.AppendJSON(nil)), string(out), "AppendFrame's bytes differ from Encode's frame on %s", ev.Type)
	}
	return f, err
}

// Last is the JSON AppendFrame wrote for the last event, or "null" when it
// gave no frame (the peer's rendering of pi's undefined).
func (tw *twinEncoder) Last() string {
	if len(tw.buf) == 0 {
		return "null"
	}
	return string(tw.buf)
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// The twin's comparison catches an AppendFrame that disagrees with Encode:
// fed an encoder whose state has drifted (one extra event), it fails.
func TestTwinRejectsDisagreeingAPIs(t *testing.T) {
	caught := 0
	for seed := 0; seed < 50; seed++ {
		s := GenStream().Example(seed)
		tw := newTwin()
		rt := &recordingT{}
		for k, ev := range s.Events {
			if k == 1 { // the append side sees the stream's second event twice
				_, _, _ = tw.app.AppendFrame(nil, ev)
			}
			if _, err := tw.encodeOrRecord(rt, ev); err != nil || rt.failed {
				break
			}
		}
		if rt.failed {
			caught++
		}
	}
	require.Positive(t, caught)
}

// encodeOrRecord is Encode with require's FailNow turned into a recorded
// failure, so the mutation test can count rejections.
func (tw *twinEncoder) encodeOrRecord(rt *recordingT, ev *pi.Event) (f *pi.Frame, err error) {
	defer func() {
		if r := recover(); r != nil && r != errFailNow {
			panic(r)
		}
	}()
	return tw.Encode(rt, ev)
}

type recordingT struct{ failed bool }

var errFailNow = new(int)

func (r *recordingT) Errorf(string, ...any) { r.failed = true }
func (r *recordingT) FailNow()              { r.failed = true; panic(errFailNow) }
