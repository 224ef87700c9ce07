package codec

import (
	"encoding/json"
	"testing"

	"github.com/frameproof/frameproof/impl/frames"
	"github.com/frameproof/frameproof/impl/pi"
	"github.com/frameproof/frameproof/props/peer"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// genEventLines is a generated stream as JSON lines with pi-ai's encoder's
// blind spots filled in: members it never reads added to the event, its
// partial and the partial's blocks, and events of a type it does not know
// inserted anywhere (also before start and after the terminal event), and
// terminal events whose reason and result are ill-typed.
func genEventLines(t *rapid.T) []json.RawMessage {
	s := GenStream().Draw(t, "stream")
	var out []json.RawMessage
	for _, ev := range s.Events {
		if rapid.IntRange(0, 5).Draw(t, "unknownBefore") == 0 {
			out = append(out, unknownEvent(t))
		}
		v, err := pi.ParseJSON(string(ev.AppendJSON(nil)))
		if err != nil {
			t.Fatalf("event does not re-parse: %v", err)
		}
		out = append(out, withScratch(t, v).AppendJSON(nil))
	}
	if rapid.Bool().Draw(t, "unknownAtEnd") {
		out = append(out, unknownEvent(t))
	}
	return out
}

func unknownEvent(t *rapid.T) json.RawMessage {
	return json.RawMessage(rapid.SampledFrom([]string{`{"type":"citation"}`, `{"type":"usage_update","usage":7}`,
		`{"type":"","contentIndex":-1,"partial":null}`, `{"type":"Text_delta","delta":5}`}).Draw(t, "unknown"))
}

// withScratch adds streaming scratch as pi-ai's providers do (index,
// partialJson, partialArgs, streamIndex on blocks) and other unread members.
func withScratch(t *rapid.T, ev pi.JSONValue) pi.JSONValue {
	c := pi.DeepClone(ev)
	o := c.ObjectValue()
	if rapid.Bool().Draw(t, "eventExtra") {
		o.Set("seq", pi.NumberValue(1))
	}
	for _, key := range []string{"partial", "message", "error"} {
		m, ok := o.Get(key)
		if !ok || m.Kind() != pi.Object {
			continue
		}
		mo := m.ObjectValue()
		if rapid.Bool().Draw(t, "messageExtra") {
			mo.Set("blockIndex", pi.EmptyObject())
		}
		content, _ := mo.Get("content")
		for _, b := range content.Array() {
			if b.Kind() == pi.Object && rapid.Bool().Draw(t, "blockExtra") {
				bo := b.ObjectValue()
				bo.Set(rapid.SampledFrom([]string{"index", "partialJson", "partialArgs", "streamIndex"}).Draw(t, "scratch"),
					rapid.SampledFrom([]pi.JSONValue{pi.NumberValue(0), pi.StringValue(`{"a"`)}).Draw(t, "scratchValue"))
			}
		}
	}
	if typ, _ := o.Get("type"); (typ.Str() == "done" || typ.Str() == "error") && rapid.Bool().Draw(t, "terminalIllTyped") {
		// the encoder reads a terminal event's type alone
		ill := []pi.JSONValue{pi.NumberValue(7), pi.NullValue(), pi.StringValue("x"), pi.EmptyObject()}
		o.Set("reason", rapid.SampledFrom(ill).Draw(t, "reason"))
		o.Set(map[string]string{"done": "message", "error": "error"}[typ.Str()], rapid.SampledFrom(ill).Draw(t, "result"))
	}
	if tc, ok := o.Get("toolCall"); ok && tc.Kind() == pi.Object && rapid.Bool().Draw(t, "toolCallExtra") {
		tc.ObjectValue().Set("partialJson", pi.StringValue("{"))
	}
	return c
}

// pi-ai utils/assistant-message-frame.ts AssistantMessageFrameEncoder.encode
// with cloneStartMessage/cloneTextContent/cloneThinkingContent/cloneToolCall:
// members it does not read are ignored and events of an unknown type give no
// frame (or the "appears before start" / "follows a terminal event" error),
// so `frameproof encode` (pi.ParseEvent + frames.Encoder) matches it.
func TestEventLinesWithUnreadMembersEncodeLikePiAI(t *testing.T) {
	p := peer.Open(t)
	n := 1000
	if testing.Short() {
		n = 200
	}
	gen := rapid.Custom(genEventLines)
	for seed := 0; seed < n; seed++ {
		lines := gen.Example(seed)
		peerFrames, peerErrIndex, peerErrMsg, err := p.Encode(lines)
		require.NoError(t, err)
		enc := frames.NewEncoder()
		var goFrames []json.RawMessage
		goErrIndex, goErrMsg := -1, ""
		for i, line := range lines {
			ev, err := pi.ParseEvent(string(line))
			if err == nil {
				var f *pi.Frame
				if f, err = enc.Encode(ev); err == nil {
					goFrames = append(goFrames, frameJSON(f))
					continue
				}
			}
			goErrIndex, goErrMsg = i, err.Error()
			break
		}
		require.Equal(t, peerErrMsg, goErrMsg, "seed %d: %s", seed, framesText(lines))
		require.Equal(t, peerErrIndex, goErrIndex, "seed %d", seed)
		require.Equal(t, joinRaw(peerFrames), joinRaw(goFrames), "seed %d: %s", seed, framesText(lines))
	}
}

func frameJSON(f *pi.Frame) json.RawMessage {
	if f == nil {
		return json.RawMessage("null")
	}
	return f.AppendJSON(nil)
}

func joinRaw(rs []json.RawMessage) string {
	out := ""
	for _, r := range rs {
		out += string(r) + "\n"
	}
	return out
}
