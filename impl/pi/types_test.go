package pi

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

const sampleMessage = `{"role":"assistant","content":[{"type":"text","text":"hi","textSignature":"s"},{"type":"thinking","thinking":"","thinkingSignature":"x","redacted":true},{"type":"toolCall","id":"c1","name":"f","arguments":{"1":2,"k":[1,"😀"]},"thoughtSignature":"t","namespace":"ns"}],"api":"anthropic-messages","provider":"anthropic","model":"m","responseModel":"rm","responseId":"r","providerThinkingLevel":"high","thinkingLevel":"high","diagnostics":[{"type":"d","timestamp":1}],"usage":{"input":1,"output":2,"cacheRead":3,"cacheWrite":4,"cacheWrite1h":5,"reasoning":6,"totalTokens":7,"cost":{"input":0.1,"output":0.2,"cacheRead":0,"cacheWrite":0,"total":0.30000000000000004}},"stopReason":"error","timestamp":1700000000000,"deferred":{"provider":"p","modelId":"m","api":"a","id":"i","expiresAt":1,"pollAfterMs":2,"data":{"x":null}},"errorMessage":"boom","rawStopReason":"raw","endTurn":false}`

func TestAssistantMessageRoundTrip(t *testing.T) {
	var m AssistantMessage
	require.NoError(t, m.UnmarshalJSON([]byte(sampleMessage)))
	out, err := Marshal(&m)
	require.NoError(t, err)
	require.Equal(t, sampleMessage, string(out))
	c := m.Clone()
	c.Content[0] = TextContent{Text: "changed"}
	require.Equal(t, "hi", m.Content[0].(TextContent).Text)
}

func TestMinimalMessageOmitsOptionals(t *testing.T) {
	m := &AssistantMessage{Content: []Content{ToolCall{ID: "a", Name: "b", Arguments: EmptyObject()}}, API: "x", Provider: "p", Model: "m", StopReason: StopPending, Timestamp: 5}
	out, _ := Marshal(m)
	require.Equal(t, `{"role":"assistant","content":[{"type":"toolCall","id":"a","name":"b","arguments":{}}],"api":"x","provider":"p","model":"m","usage":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"pending","timestamp":5}`, string(out))
}

func TestEmptyStringOptionalIsKept(t *testing.T) {
	out, _ := Marshal(TextContent{Text: "", TextSignature: Str("")})
	require.Equal(t, `{"type":"text","text":"","textSignature":""}`, string(out))
}

func TestDecodeErrorsNameTheField(t *testing.T) {
	bad := map[string]string{
		strings.Replace(sampleMessage, `"model":"m"`, `"model":1`, 1):                   "$.model: expected string, got number",
		strings.Replace(sampleMessage, `"api":"anthropic-messages",`, ``, 1):            "$.api: missing required string",
		strings.Replace(sampleMessage, `"endTurn":false`, `"endTurn":false,"zz":1`, 1):  "$.zz: unknown field",
		strings.Replace(sampleMessage, `"model":"m"`, `"zz":1,"model":"m","7":1`, 1):    "$.7: unknown field", // JS order: integer keys first
		strings.Replace(sampleMessage, `"model":"m"`, `"model":"m","8":1,"zz":1`, 1):    "$.8: unknown field",
		strings.Replace(sampleMessage, `"textSignature":"s"`, `"textSignature":5`, 1):   "$.content[0].textSignature: expected string",
		strings.Replace(sampleMessage, `{"type":"text",`, `{"type":"image",`, 1):        `$.content[0].type: unsupported content type "image"`,
		strings.Replace(sampleMessage, `"total":0.30000000000000004`, `"total":"x"`, 1): "$.usage.cost.total",
	}
	for in, want := range bad {
		var m AssistantMessage
		err := m.UnmarshalJSON([]byte(in))
		require.Error(t, err)
		require.Contains(t, err.Error(), want)
	}
}

func TestEventAndFrameRoundTrip(t *testing.T) {
	partial := `{"role":"assistant","content":[],"api":"a","provider":"p","model":"m","usage":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"pending","timestamp":1}`
	events := []string{
		`{"type":"start","partial":` + partial + `}`,
		`{"type":"text_delta","contentIndex":0,"delta":"\ud83d","partial":` + partial + `}`,
		`{"type":"text_end","contentIndex":2,"content":"x","partial":` + partial + `}`,
		`{"type":"toolcall_end","contentIndex":1,"toolCall":{"type":"toolCall","id":"i","name":"n","arguments":[1]},"partial":` + partial + `}`,
		`{"type":"done","reason":"stop","message":` + partial + `}`,
		`{"type":"error","reason":"aborted","error":` + partial + `}`,
		`{"type":"text_start","contentIndex":-1,"partial":` + partial + `}`,
		`{"type":"text_start","contentIndex":1.5,"partial":` + partial + `}`,
	}
	for _, in := range events {
		e, err := ParseStreamEvent(in)
		require.NoError(t, err, in)
		out, _ := Marshal(e)
		require.Equal(t, in, string(out))
	}
	e, _ := ParseEvent(events[7])
	require.Equal(t, "1.5", e.ContentIndex.JS())
	require.False(t, e.ContentIndex.Valid())
	frames := []string{
		`{"type":"start","partial":` + partial + `}`,
		`{"type":"text_start","contentIndex":0,"content":{"type":"text","text":"a"}}`,
		`{"type":"thinking_start","contentIndex":0,"content":{"type":"thinking","thinking":"a","redacted":true}}`,
		`{"type":"toolcall_start","contentIndex":0,"toolCall":{"type":"toolCall","id":"i","name":"n","arguments":{}}}`,
		`{"type":"text_delta","contentIndex":0,"delta":"d"}`,
		`{"type":"toolcall_checkpoint","contentIndex":3,"json":"{\"a\":"}`,
		`{"type":"text_end","contentIndex":0,"content":"c","textSignature":"s"}`,
		`{"type":"thinking_end","contentIndex":0,"content":"c","thinkingSignature":"s","redacted":false}`,
		`{"type":"toolcall_end","contentIndex":0,"id":"i","name":"n","arguments":"str","thoughtSignature":"t","namespace":"n"}`,
	}
	for _, in := range frames {
		f, err := ParseFrame(in)
		require.NoError(t, err, in)
		out, _ := Marshal(f)
		require.Equal(t, in, string(out))
	}
	_, err := ParseFrame(`{"type":"bogus"}`)
	require.ErrorContains(t, err, `$.type: unknown frame type "bogus"`)
	_, err = ParseFrame(`{"type":"text_delta","contentIndex":0}`)
	require.ErrorContains(t, err, `$.delta: missing required string`)
}

func TestUserAndToolResultRoundTrip(t *testing.T) {
	for _, in := range []string{
		`{"role":"user","content":"hello","timestamp":1}`,
		`{"role":"user","content":[{"type":"text","text":"a"},{"type":"image","data":"AAA","mimeType":"image/png"}],"timestamp":1}`,
		`{"role":"user","content":[],"timestamp":1}`,
	} {
		var m UserMessage
		require.NoError(t, m.UnmarshalJSON([]byte(in)))
		out, _ := Marshal(&m)
		require.Equal(t, in, string(out))
	}
	in := `{"role":"toolResult","toolCallId":"c","toolName":"n","content":[{"type":"text","text":"r"}],"details":{"b":1,"a":[]},"isError":true,"timestamp":2}`
	var m ToolResultMessage
	require.NoError(t, m.UnmarshalJSON([]byte(in)))
	out, _ := Marshal(&m)
	require.Equal(t, in, string(out))
	var bad ToolResultMessage
	require.ErrorContains(t, bad.UnmarshalJSON([]byte(`{"role":"toolResult","toolCallId":"c","toolName":"n","content":[{"type":"toolCall","id":"","name":"","arguments":{}}],"isError":true,"timestamp":2}`)), `unsupported content type "toolCall"`)
}

// pi-ai utils/assistant-message-frame.js AssistantMessageFrameEncoder.encode
// reads only a terminal event's type; utils/event-stream.js
// AssistantMessageEventStream reads its result ("message" or "error").
func TestTerminalEventsDecodeWhatPiReads(t *testing.T) {
	in := `{"type":"error","reason":7,"error":"not a message","extra":1}`
	e, err := ParseEvent(in)
	require.NoError(t, err)
	require.Equal(t, &Event{Type: EventError}, e)
	_, err = ParseStreamEvent(in)
	require.Error(t, err, "the stream's result is read")
}
