package provider

import (
	"encoding/json"
	"regexp"
	"testing"

	"github.com/frameproof/frameproof/impl/frames"
	"github.com/frameproof/frameproof/impl/pi"
	impl "github.com/frameproof/frameproof/impl/provider"
	"github.com/frameproof/frameproof/props/peer"
	"github.com/stretchr/testify/require"
)

// scratchMember finds a streaming scratch member pi-ai's providers leave on
// live blocks and messages.
var scratchMember = regexp.MustCompile(`"(index|partialJson|partialArgs|streamIndex)":`)

// piaiScratch is the scratch each pi-ai 1.0.3 provider leaves on the blocks
// of its live partial (src/providers/*.ts); Gemini's provider leaves none.
// The test requires each to be seen, so it runs on the fields, not around them.
var piaiScratch = map[impl.Wire][]string{
	impl.WireAnthropic:       {"index", "partialJson"},
	impl.WireOpenAIChat:      {"partialArgs", "streamIndex"},
	impl.WireOpenAIResponses: {"partialJson"},
}

// pi-ai utils/assistant-message-frame.ts AssistantMessageFrameEncoder.encode
// and reduceAssistantMessageFrames, on the events pi-ai's own four providers
// push (scratch fields intact): our encoder and reducer, fed the same JSON
// lines `frameproof encode` reads, give pi-ai's frame and message bytes.
func TestPiAIProviderEventsEncodeAndReduceLikePiAI(t *testing.T) {
	n := 40
	if testing.Short() {
		n = 20
	}
	s := startPiAIOrSkip(t, 4*n+10)
	p := peer.Open(t)
	for _, wire := range impl.Wires {
		t.Run(string(wire), func(t *testing.T) {
			seen := map[string]bool{}
			for seed := 0; seed < n; seed++ {
				sc := GenScenario(wire).Example(seed)
				rd, err := Render(sc)
				require.NoError(t, err)
				raw, err := s.RunPiRaw(wire, rd)
				require.NoError(t, err, "seed %d", seed)
				for _, line := range raw {
					for _, m := range scratchMember.FindAllSubmatch(line, -1) {
						seen[string(m[1])] = true
					}
				}
				goFrames, goErrIndex, goErrMsg := encodeLines(raw)
				peerFrames, peerErrIndex, peerErrMsg, err := p.Encode(raw)
				require.NoError(t, err)
				require.Empty(t, ComparePeerFrames(goFrames, goErrIndex, goErrMsg, peerFrames, peerErrIndex, peerErrMsg), "seed %d", seed)

				stored := nonNull(peerFrames)
				peerMsg, peerErr, err := p.Reduce(stored)
				require.NoError(t, err)
				goMsg, goErr := reduceLines(stored)
				require.Equal(t, peerErr, goErr, "seed %d", seed)
				require.Equal(t, string(peerMsg), goMsg, "seed %d", seed)
			}
			for _, f := range piaiScratch[wire] {
				require.True(t, seen[f], "pi-ai's %s events never carried %q", wire, f)
			}
		})
	}
}

// encodeLines is `frameproof encode`: pi.ParseEvent then the Go encoder,
// stopping at the first line that fails either way (EncodeRaw's shape).
func encodeLines(raw []json.RawMessage) (out []json.RawMessage, errIndex int, errMsg string) {
	events := make([]*pi.Event, 0, len(raw))
	var parseErr error
	for _, line := range raw {
		ev, err := pi.ParseEvent(string(line))
		if err != nil {
			parseErr = err
			break
		}
		events = append(events, ev)
	}
	out, errIndex, errMsg = EncodeRaw(events, frames.NewEncoder())
	if errIndex < 0 && parseErr != nil {
		return out, len(events), parseErr.Error()
	}
	return out, errIndex, errMsg
}

// reduceLines is `frameproof reduce`: frames.ReduceValues on each stored line.
func reduceLines(raw []json.RawMessage) (string, string) {
	vs := make([]pi.JSONValue, len(raw))
	for i, line := range raw {
		v, err := pi.ParseJSON(string(line))
		if err != nil {
			return "", err.Error()
		}
		vs[i] = v
	}
	m, err := frames.ReduceValues(vs)
	if err != nil {
		return "", err.Error()
	}
	if m.IsUndefined() {
		return "null", ""
	}
	return string(m.AppendJSON(nil)), ""
}

func nonNull(fs []json.RawMessage) []json.RawMessage {
	var out []json.RawMessage
	for _, f := range fs {
		if string(f) != "null" {
			out = append(out, f)
		}
	}
	return out
}
