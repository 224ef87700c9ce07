package codec

import (
	"encoding/json"
	"regexp"
	"testing"

	"github.com/frameproof/frameproof/impl/frames"
	"github.com/frameproof/frameproof/impl/pi"
	"github.com/frameproof/frameproof/props/peer"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// genCorruptFrames encodes a valid stream and then damages the frame list:
// drop, duplicate, move or re-index a frame, or swap a start block's kind.
func genCorruptFrames(t *rapid.T) []pi.Frame {
	s := GenStream().Draw(t, "stream")
	enc := frames.NewEncoder()
	var fs []pi.Frame
	for _, ev := range s.Events {
		if f, err := enc.Encode(ev); err == nil && f != nil {
			fs = append(fs, *f)
		}
	}
	for n := rapid.IntRange(1, 3).Draw(t, "damage"); n > 0 && len(fs) > 0; n-- {
		i := rapid.IntRange(0, len(fs)-1).Draw(t, "i")
		switch rapid.IntRange(0, 4).Draw(t, "how") {
		case 0:
			fs = append(fs[:i:i], fs[i+1:]...)
		case 1:
			fs = append(fs[:i+1:i+1], fs[i:]...)
		case 2:
			j := rapid.IntRange(0, len(fs)-1).Draw(t, "j")
			fs[i], fs[j] = fs[j], fs[i]
		case 3:
			fs[i].ContentIndex = rapid.SampledFrom([]pi.ContentIndex{pi.Index(0), pi.Index(1), pi.Index(7), pi.Index(-1), {Invalid: "0.5"}}).Draw(t, "idx")
		default:
			if fs[i].Block != nil {
				fs[i].Block = rapid.SampledFrom([]pi.Content{pi.TextContent{Text: "t"}, pi.ThinkingContent{}, pi.ImageContent{Data: "d", MimeType: "m"},
					pi.ToolCall{ID: "i", Name: "n", Arguments: pi.EmptyObject()}}).Draw(t, "block")
			}
		}
	}
	return fs
}

func TestCorruptFrameSequencesReduceLikePiAI(t *testing.T) {
	p := peer.Open(t)
	n := 1000
	if testing.Short() {
		n = 100
	}
	gen := rapid.Custom(genCorruptFrames)
	errorsSeen := 0
	for seed := 0; seed < n; seed++ {
		fs := gen.Example(seed)
		raw := frameLines(fs)
		peerMsg, peerErr, err := p.Reduce(raw)
		require.NoError(t, err)
		goMsg, goErr := frames.Reduce(fs)
		require.Equal(t, peerErr, errString(goErr), "seed %d", seed)
		if peerErr != "" {
			errorsSeen++
		}
		if peerErr == "" {
			require.Equal(t, string(peerMsg), marshalMsg(goMsg), "seed %d", seed)
		}
		// The stored-bytes reduction (fast path for delta frames) agrees too.
		requireReduceJSONLikePeer(t, raw, peerMsg, peerErr, "seed %d", seed)
	}
	require.Greater(t, errorsSeen, n/10, "too few corrupt sequences made pi-ai throw")
	t.Logf("%d of %d sequences threw", errorsSeen, n)
}

// pi-ai utils/assistant-message-frame.ts reduceAssistantMessageFrames: stored
// frames of unknown type, missing members and members of another JSON type
// reduce (or throw) exactly as pi-ai does, JS semantics included.
func TestStoredFramesReduceLikePiAI(t *testing.T) {
	p := peer.Open(t)
	n := 2000
	if testing.Short() {
		n = 300
	}
	gen := GenStoredFrames()
	errorsSeen, strictRejected, fastFrames, totalFrames := 0, 0, 0, 0
	for seed := 0; seed < n; seed++ {
		fs := gen.Example(seed)
		raw := frameLines(fs)
		peerMsg, peerErr, err := p.Reduce(raw)
		require.NoError(t, err)
		goMsg, goErr := frames.ReduceValues(fs)
		goMsgText := "null"
		if goErr == nil && !goMsg.IsUndefined() {
			goMsgText = string(goMsg.AppendJSON(nil))
		}
		require.Equal(t, peerErr, errString(goErr), "seed %d: frames %s", seed, framesText(raw))
		fastFrames += requireReduceJSONLikePeer(t, raw, peerMsg, peerErr, "seed %d: frames %s", seed, framesText(raw))
		totalFrames += len(raw)
		if peerErr != "" {
			errorsSeen++
			continue
		}
		require.Equal(t, string(peerMsg), goMsgText, "seed %d: frames %s", seed, framesText(raw))
		if strictFails(raw) {
			strictRejected++
		}
	}
	// The generator must reach lists that pi-ai reduces but the strict
	// reading rejects (the lane used to wedge on those), and lists it throws on.
	require.Greater(t, strictRejected, n/10, "too few lists that only the strict reading rejects")
	require.Greater(t, errorsSeen, n/20, "too few lists that made pi-ai throw")
	// Most stored frames are deltas: ReduceJSON's fast path must carry them.
	require.Greater(t, fastFrames, totalFrames/4, "too few frames in the fast path's shape")
	t.Logf("%d of %d lists threw; %d reduced although the strict reading rejects them; %d of %d frames in the fast shape",
		errorsSeen, n, strictRejected, fastFrames, totalFrames)
}

// fastShape is the delta frame shape frames.ApplyJSON reads byte by byte
// (a looser pattern than its own check: it only counts coverage).
var fastShape = regexp.MustCompile(`^\{"type":"(text|thinking|toolcall)_delta","contentIndex":(0|[1-9][0-9]*),"delta":"[^\\]*"\}$`)

// requireReduceJSONLikePeer reduces raw from its bytes with frames.ReduceJSON
// and frames.AppendReducedJSON and requires pi-ai's message (JSON.stringify
// of it, byte for byte) or error from both; it returns how many frames had
// the fast path's shape.
func requireReduceJSONLikePeer(t *testing.T, raw []json.RawMessage, peerMsg json.RawMessage, peerErr string, format string, args ...any) int {
	t.Helper()
	lines, fast := make([][]byte, len(raw)), 0
	for i, r := range raw {
		lines[i] = r
		if fastShape.Match(r) {
			fast++
		}
	}
	m, err := frames.ReduceJSON(lines)
	errText, msgText := "", "null"
	if err != nil {
		errText = err.Error()
	} else if !m.IsUndefined() {
		msgText = string(m.AppendJSON(nil))
	}
	require.Equal(t, peerErr, errText, append([]any{"ReduceJSON: " + format}, args...)...)
	if peerErr == "" {
		require.Equal(t, string(peerMsg), msgText, append([]any{"ReduceJSON: " + format}, args...)...)
	}
	// The message's JSON written straight from the frames' bytes, delta
	// literals copied as they are.
	out, defined, err := frames.AppendReducedJSON(nil, lines)
	errText, msgText = "", "null"
	if err != nil {
		errText = err.Error()
	} else if defined {
		msgText = string(out)
	}
	require.Equal(t, peerErr, errText, append([]any{"AppendReducedJSON: " + format}, args...)...)
	if peerErr == "" {
		require.Equal(t, string(peerMsg), msgText, append([]any{"AppendReducedJSON: " + format}, args...)...)
	}
	return fast
}

func framesText(raw []json.RawMessage) string {
	b, _ := json.Marshal(raw)
	return string(b)
}

// strictFails reports whether the typed reading (pi.ParseFrame +
// frames.Reduce) rejects the list.
func strictFails(raw []json.RawMessage) bool {
	fs := make([]pi.Frame, 0, len(raw))
	for _, r := range raw {
		f, err := pi.ParseFrame(string(r))
		if err != nil {
			return true
		}
		fs = append(fs, *f)
	}
	_, err := frames.Reduce(fs)
	return err != nil
}

// frameLines is each frame's stored JSON line, as the peer reads them.
func frameLines[F any, P interface {
	*F
	AppendJSON([]byte) []byte
}](fs []F) []json.RawMessage {
	raw := make([]json.RawMessage, len(fs))
	for i := range fs {
		raw[i] = P(&fs[i]).AppendJSON(nil)
	}
	return raw
}
