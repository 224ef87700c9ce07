package frames

import (
	"testing"

	"github.com/frameproof/frameproof/impl/pi"
	"github.com/stretchr/testify/require"
)

// pi-ai utils/assistant-message-frame.ts reduceAssistantMessageFrames on
// stored frames it does not validate. Each want is what pi-ai 1.0.3 printed
// for the frames under node 20 (JSON.stringify of the result, or "ERR " and
// the message it threw); the peer differential in props/codec covers
// generated lists, these pin one case of each JS rule without the peer.
func TestReduceValuesPinsPiAIJSSemantics(t *testing.T) {
	cases := []struct{ name, frames, want string }{
		{"unknownTypes", `[{"type":"start","partial":{"role":"assistant","content":[],"api":"a","provider":"p","model":"m","stopReason":"pending","timestamp":1}},{"type":"citation","contentIndex":0},{"type":7},"x",[],{"type":"text_start","contentIndex":0,"content":{"type":"text","text":"a","extra":1}},{"type":"text_delta","contentIndex":0,"delta":"b"}]`, `{"role":"assistant","content":[{"type":"text","text":"ab","extra":1}],"api":"a","provider":"p","model":"m","stopReason":"pending","timestamp":1}`},
		{"missingDelta", `[{"type":"start","partial":{"role":"assistant","content":[],"api":"a","provider":"p","model":"m","stopReason":"pending","timestamp":1}},{"type":"text_start","contentIndex":0,"content":{"type":"text","text":"a"}},{"type":"text_delta","contentIndex":0}]`, `{"role":"assistant","content":[{"type":"text","text":"aundefined"}],"api":"a","provider":"p","model":"m","stopReason":"pending","timestamp":1}`},
		{"numberAdd", `[{"type":"start","partial":{"role":"assistant","content":[],"api":"a","provider":"p","model":"m","stopReason":"pending","timestamp":1}},{"type":"thinking_start","contentIndex":0,"content":{"type":"thinking","thinking":1}},{"type":"thinking_delta","contentIndex":0,"delta":2},{"type":"thinking_delta","contentIndex":0,"delta":null}]`, `{"role":"assistant","content":[{"type":"thinking","thinking":3}],"api":"a","provider":"p","model":"m","stopReason":"pending","timestamp":1}`},
		{"endUndefined", `[{"type":"start","partial":{"role":"assistant","content":[],"api":"a","provider":"p","model":"m","stopReason":"pending","timestamp":1}},{"type":"text_start","contentIndex":0,"content":{"type":"text","text":"a","textSignature":"s"}},{"type":"text_end","contentIndex":0,"textSignature":null}]`, `{"role":"assistant","content":[{"type":"text","textSignature":null}],"api":"a","provider":"p","model":"m","stopReason":"pending","timestamp":1}`},
		{"toolJsonNumber", `[{"type":"start","partial":{"role":"assistant","content":[],"api":"a","provider":"p","model":"m","stopReason":"pending","timestamp":1}},{"type":"toolcall_start","contentIndex":0,"toolCall":{"type":"toolCall","id":"i","name":"n","arguments":{}}},{"type":"toolcall_checkpoint","contentIndex":0,"json":0},{"type":"toolcall_delta","contentIndex":0,"delta":"{\"a\":[1"}]`, `{"role":"assistant","content":[{"type":"toolCall","id":"i","name":"n","arguments":{}}],"api":"a","provider":"p","model":"m","stopReason":"pending","timestamp":1}`},
		{"toolJsonTrim", `[{"type":"start","partial":{"role":"assistant","content":[],"api":"a","provider":"p","model":"m","stopReason":"pending","timestamp":1}},{"type":"toolcall_start","contentIndex":0,"toolCall":{"type":"toolCall","id":"i","name":"n","arguments":{}}},{"type":"toolcall_checkpoint","contentIndex":0,"json":5}]`, `ERR partialJson.trim is not a function`},
		{"falsyPartial", `[{"type":"start","partial":0},{"type":"text_delta"},{"type":"start","partial":{"role":"assistant","content":[],"api":"a","provider":"p","model":"m","stopReason":"pending","timestamp":1}}]`, `ERR text_delta frame appears before the start frame`},
		{"stringPartial", `[{"type":"start","partial":"x"},{"type":"text_start","contentIndex":0,"content":{"type":"text","text":""}}]`, `ERR Cannot read properties of undefined (reading 'length')`},
		{"contentNotArray", `[{"type":"start","partial":{"role":"assistant","content":"ab","api":"a","provider":"p","model":"m","stopReason":"pending","timestamp":1}},{"type":"text_start","contentIndex":2,"content":{"type":"text","text":""}}]`, `ERR message.content.push is not a function`},
		{"nullFrame", `[{"type":"start","partial":{"role":"assistant","content":[],"api":"a","provider":"p","model":"m","stopReason":"pending","timestamp":1}},null]`, `ERR Cannot read properties of null (reading 'type')`},
		{"beforeStart", `[{"type":["a",null,1]},{"type":"start","partial":{"role":"assistant","content":[],"api":"a","provider":"p","model":"m","stopReason":"pending","timestamp":1}}]`, `ERR a,,1 frame appears before the start frame`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			list, err := pi.ParseJSON(c.frames)
			require.NoError(t, err)
			m, err := ReduceValues(list.Array())
			got := "null"
			switch {
			case err != nil:
				got = "ERR " + err.Error()
			case !m.IsUndefined():
				got = string(m.AppendJSON(nil))
			}
			require.Equal(t, c.want, got)
		})
	}
}
