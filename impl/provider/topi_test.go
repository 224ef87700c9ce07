package provider

import (
	"strings"
	"testing"

	"github.com/frameproof/frameproof/impl/pi"
	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
)

// anthropicSSE is a small Anthropic stream: a text block whose deltas split
// U+1F600 into its two surrogate halves, and a tool call whose argument
// JSON arrives in two halves.
const anthropicSSE = `event: message_start
data: {"type":"message_start","message":{"id":"msg_1","model":"m","usage":{"input_tokens":3,"output_tokens":1}}}

event: content_block_start
data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a\ud83d"}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"\ude00b"}}

event: content_block_stop
data: {"type":"content_block_stop","index":0}

event: content_block_start
data: {"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"t1","name":"read","input":{}}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"path\":\"a"}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"b\",\"2\":1}"}}

event: content_block_stop
data: {"type":"content_block_stop","index":1}

event: message_delta
data: {"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":7}}

event: message_stop
data: {"type":"message_stop"}

`

func streamPi(t *testing.T, sse string) []*pi.Event {
	t.Helper()
	var out []*pi.Event
	StreamPi(WireAnthropic, strings.NewReader(sse), Meta{Provider: "p", Model: "m"}, Options{}, func(e *pi.Event) { out = append(out, e) })
	return out
}

func partialJSON(t *testing.T, e *pi.Event, i int) string {
	t.Helper()
	require.NotNil(t, e.Partial, "%s has no partial", e.Type)
	return string(e.Partial.Content[i].(pi.ToolCall).Arguments.AppendJSON(nil))
}

// A text delta may end in half a surrogate pair: the partial holds the lone
// surrogate (1 UTF-16 unit) and the next delta re-joins the character.
func TestStreamPiKeepsLoneSurrogates(t *testing.T) {
	evs := streamPi(t, anthropicSSE)
	require.Equal(t, pi.EventTextDelta, evs[2].Type)
	require.Equal(t, 2, pi.UTF16Len(evs[2].Delta), "delta a+high surrogate")
	require.Equal(t, "a\xed\xa0\xbd", evs[2].Partial.Content[0].(pi.TextContent).Text)
	require.Equal(t, pi.EventTextEnd, evs[4].Type)
	require.Equal(t, "a😀b", evs[4].Content)
}

// The live partial's arguments are parseStreamingJson (pi-ai
// utils/json-parse.js) of the buffer after every delta, in JS property order.
func TestStreamPiPartialArgumentsStream(t *testing.T) {
	evs := streamPi(t, anthropicSSE)
	require.Equal(t, pi.EventToolCallStart, evs[5].Type)
	require.Equal(t, `{}`, partialJSON(t, evs[5], 1))
	require.Equal(t, `{"path":"a"}`, partialJSON(t, evs[6], 1))
	require.Equal(t, `{"2":1,"path":"ab"}`, partialJSON(t, evs[7], 1))
	end := evs[8]
	require.Equal(t, pi.EventToolCallEnd, end.Type)
	require.Equal(t, `{"2":1,"path":"ab"}`, string(end.ToolCall.Arguments.AppendJSON(nil)))
	done := evs[len(evs)-1]
	require.Equal(t, pi.EventDone, done.Type)
	require.Equal(t, pi.StopReason("toolUse"), done.Reason)
	require.Nil(t, done.Partial)
}

// ToPi and the FromPi functions are inverse on everything an adapter emits.
func TestToPiRoundTrip(t *testing.T) {
	var evs []Event
	Stream(WireAnthropic, strings.NewReader(anthropicSSE), Meta{Provider: "p", Model: "m"}, Options{}, func(e Event) { evs = append(evs, e) })
	for i, e := range evs {
		p := e.ToPi()
		// the pi event survives its own JSON
		back, err := pi.ParseStreamEvent(string(p.AppendJSON(nil)))
		require.NoError(t, err, "event %d", i)
		got, err := EventFromPi(back)
		require.NoError(t, err, "event %d", i)
		if d := cmp.Diff(e, got); d != "" {
			t.Fatalf("event %d (%s) changed through pi (-want +got):\n%s", i, e.Type, d)
		}
	}
}

// pi-ai utils/assistant-message-frame.ts cloneToolCall/cloneStartMessage: members
// the clone helpers do not name are ignored whatever their name; usage,
// copied whole by structuredClone, still rejects a member it cannot carry.
func TestDecodePiEventKeepsPiWhitelist(t *testing.T) {
	line := `{"type":"toolcall_delta","contentIndex":0,"delta":"{\"a\"","partial":{"role":"assistant","content":[` +
		`{"type":"toolCall","id":"t","name":"n","arguments":{},"partialJson":"{\"a\"","index":0,"partialArgs":"","streamIndex":0}],` +
		`"api":"anthropic-messages","provider":"p","model":"m","usage":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0,` +
		`"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"stop","timestamp":1}}`
	ev, err := DecodePiEvent([]byte(line))
	require.NoError(t, err)
	require.Equal(t, `{"type":"toolCall","id":"t","name":"n","arguments":{}}`, string(ev.Partial.Content[0].(pi.ToolCall).AppendJSON(nil)))
	_, err = DecodePiEvent([]byte(strings.Replace(line, `"index":0`, `"bogus":0`, 1)))
	require.NoError(t, err, "an unnamed block member is not read by pi-ai's clone helpers")
	_, err = DecodePiEvent([]byte(strings.Replace(line, `"timestamp":1}`, `"timestamp":1,"blockIndexMap":{}}`, 1)))
	require.NoError(t, err, "an unnamed message member is not read by cloneStartMessage")
	_, err = DecodePiEvent([]byte(strings.Replace(line, `"totalTokens":0`, `"totalTokens":0,"bogus":1`, 1)))
	require.ErrorContains(t, err, "bogus")
	_, err = DecodePiEvent([]byte(`{"type":"start"`))
	require.ErrorContains(t, err, "provider: decode pi event")
}
