package codec

import (
	"testing"

	"github.com/frameproof/frameproof/impl/frames"
	"github.com/frameproof/frameproof/impl/pi"
	modelframes "github.com/frameproof/frameproof/model/frames"
	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

func marshalMsg(m *pi.AssistantMessage) string {
	if m == nil {
		return "null"
	}
	return string(m.AppendJSON(nil))
}

// runObserved encodes s (through both encoder APIs, see twinEncoder) and
// checks, after every event, that reducing the frames so far gives the
// observed message, that at most one frame was produced and which events
// must give none.
func runObserved(t require.TestingT, s Stream) {
	enc := newTwin()
	obs := modelframes.NewObserver()
	red := frames.NewReducer()
	for k, ev := range s.Events {
		f, err := enc.Encode(t, ev)
		require.NoError(t, err, "event %d (%s)", k, ev.Type)
		obs.Observe(ev)
		switch ev.Type {
		case pi.EventDone, pi.EventError:
			require.Nil(t, f, "event %d: %s must give no frame", k, ev.Type)
		case pi.EventTextDelta, pi.EventThinkingDelta:
			if f != nil {
				require.NotEmpty(t, f.Delta, "event %d: empty delta frame", k)
			}
		}
		if f != nil {
			require.NoError(t, red.Apply(f))
		}
		got, err := red.Message()
		require.NoError(t, err)
		want := obs.Message()
		if gs, ws := marshalMsg(got), marshalMsg(want); gs != ws {
			require.Fail(t, "reduced frames differ from the observed message", "after event %d (%s):\n%s", k, ev.Type, cmp.Diff(ws, gs))
		}
		require.Equal(t, obs.OpenBlocks(), enc.enc.OpenBlocks(), "open blocks after event %d", k)
		require.LessOrEqual(t, enc.enc.RetainedBytes(), obs.UnsyncedToolJSON(), "retained bytes after event %d", k)
	}
}

// Property 1 and 2: after every event Reduce(frames so far) equals the
// observed message; at most one frame per event; done/error give none.
func TestReduceOfFramesIsObservedMessage(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) { runObserved(t, GenStream().Draw(t, "stream")) })
}

// The batch Reduce agrees with the incremental one.
func TestReduceBatchEqualsIncremental(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := GenStream().Draw(t, "stream")
		enc := newTwin()
		red := frames.NewReducer()
		var fs []pi.Frame
		for _, ev := range s.Events {
			f, err := enc.Encode(t, ev)
			require.NoError(t, err)
			if f != nil {
				fs = append(fs, *f)
				require.NoError(t, red.Apply(f))
			}
		}
		a, err := frames.Reduce(fs)
		require.NoError(t, err)
		b, err := red.Message()
		require.NoError(t, err)
		require.Equal(t, marshalMsg(a), marshalMsg(b))
	})
}

// Property 3: frame bytes stay within the delta bytes plus a per-frame and
// per-block overhead: delta and checkpoint frames carry each streamed code
// unit at most once (JSON-escaped) plus at most 64 bytes of framing; start
// and end frames are one each per block.
func TestFrameBytesBoundedByDeltas(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := GenStream().Draw(t, "stream")
		enc := newTwin()
		deltaBudget, streamed := 0, 0
		for _, ev := range s.Events {
			f, err := enc.Encode(t, ev)
			require.NoError(t, err)
			switch ev.Type {
			case pi.EventTextDelta, pi.EventThinkingDelta, pi.EventToolCallDelta:
				deltaBudget += len(pi.QuoteJSON(ev.Delta)) + 64
			}
			if f == nil {
				continue
			}
			switch f.Type {
			case pi.FrameTextDelta, pi.FrameThinkingDelta, pi.FrameToolCallDelta, pi.FrameToolCallCheckpoint:
				streamed += len(f.AppendJSON(nil))
			}
		}
		require.LessOrEqual(t, streamed, deltaBudget)
	})
}

// Property 4: on a long stream the encoder's retained state is bounded by
// open blocks and unsynchronized tool JSON (checked after every event in
// runObserved), never by the message size.
func TestRetainedStateOnLongStreams(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) { runObserved(t, GenLongStream().Draw(t, "stream")) })
}

// Property 5: each invalid stream gives pi's exact error at the right event.
func TestInvalidStreamsGiveExactErrors(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := GenInvalidStream().Draw(t, "stream")
		enc := newTwin()
		for k, ev := range s.Events {
			_, err := enc.Encode(t, ev)
			if k < s.ErrAt {
				require.NoError(t, err, "event %d", k)
				continue
			}
			require.EqualError(t, err, s.WantErr)
		}
	})
}
