package codec

import (
	"encoding/json"
	"testing"

	"github.com/frameproof/frameproof/impl/frames"
	"github.com/frameproof/frameproof/impl/pi"
	"github.com/frameproof/frameproof/props/peer"
	"github.com/stretchr/testify/require"
)

// pi-ai utils/assistant-message-frame.ts reduceAssistantMessageFrames: a
// stored value that JS turns into a string or number (`block.text +=
// frame.delta`, `state.json += frame.delta`, the template literals of its
// errors, `contentIndex < message.content.length`) throws V8's TypeError
// "Cannot convert object to primitive value" when it is an object with an
// own toString (JSON holds no functions, so the member is never callable),
// or an array holding one (join); an own valueOf alone still gives
// "[object Object]". Both readings of the stored list (frames.ReduceValues
// and frames.ReduceJSON's byte-level path) must answer as pi-ai running.
func TestOwnToStringReducesLikePiAI(t *testing.T) {
	p := peer.Open(t)
	const start = `{"type":"start","partial":{"role":"assistant","content":[],"api":"a","provider":"p","model":"m","usage":{},"stopReason":"stop","timestamp":0}}`
	const text = `{"type":"text_start","contentIndex":0,"content":{"type":"text","text":"x"}}`
	const tool = `{"type":"toolcall_start","contentIndex":0,"toolCall":{"type":"toolCall","id":"i","name":"n","arguments":{}}}`
	cases := map[string][]string{
		"text delta":             {start, text, `{"type":"text_delta","contentIndex":0,"delta":{"toString":1}}`},
		"text delta valueOf":     {start, text, `{"type":"text_delta","contentIndex":0,"delta":{"valueOf":1}}`},
		"text delta both":        {start, text, `{"type":"text_delta","contentIndex":0,"delta":{"valueOf":"v","toString":"s"}}`},
		"text delta in array":    {start, text, `{"type":"text_delta","contentIndex":0,"delta":[1,[null,{"toString":null}]]}`},
		"text delta plain":       {start, text, `{"type":"text_delta","contentIndex":0,"delta":[{"a":1},null,2]}`},
		"text on object":         {start, `{"type":"text_start","contentIndex":0,"content":{"type":"text","text":{"toString":0}}}`, `{"type":"text_delta","contentIndex":0,"delta":"d"}`},
		"text on object, fast":   {start, `{"type":"text_start","contentIndex":0,"content":{"type":"text","text":{"toString":0}}}`, `{"type":"text_delta","contentIndex":0,"delta":"\u00e9"}`},
		"tool json":              {start, tool, `{"type":"toolcall_delta","contentIndex":0,"delta":{"toString":"{}"}}`},
		"type before start":      {`{"type":{"toString":"x"}}`, start},
		"content type":           {start, `{"type":"text_start","contentIndex":0,"content":{"type":{"toString":"text"}}}`},
		"content index":          {start, `{"type":"text_delta","contentIndex":{"toString":0},"delta":"d"}`},
		"content length":         {`{"type":"start","partial":{"content":{"length":{"toString":1}}}}`, text},
		"content length valueOf": {`{"type":"start","partial":{"content":{"length":{"valueOf":1}}}}`, text},
	}
	for name, lines := range cases {
		raw := make([]json.RawMessage, len(lines))
		values := make([]pi.JSONValue, len(lines))
		for i, l := range lines {
			raw[i] = json.RawMessage(l)
			v, err := pi.ParseJSON(l)
			require.NoError(t, err, name)
			values[i] = v
		}
		peerMsg, peerErr, err := p.Reduce(raw)
		require.NoError(t, err, name)
		got, goErr := frames.ReduceValues(values)
		require.Equal(t, peerErr, errString(goErr), "%s: ReduceValues", name)
		if peerErr == "" {
			require.Equal(t, string(peerMsg), string(got.AppendJSON(nil)), "%s: ReduceValues", name)
		}
		requireReduceJSONLikePeer(t, raw, peerMsg, peerErr, "%s", name)
	}
}
