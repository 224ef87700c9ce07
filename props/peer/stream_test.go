package peer

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Hand-written fixtures: a tiny text stream with per-event partials, written
// as the exact JSON bytes pi-ai's JSON.stringify produces for them.

const usageJSON = `{"input":3,"output":5,"cacheRead":0,"cacheWrite":0,"totalTokens":8,` +
	`"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}}`

// partial is an assistant message whose content is content (a JSON array).
func partial(content, stopReason string) string {
	return `{"role":"assistant","content":` + content + `,"api":"openai-responses","provider":"openai",` +
		`"model":"gpt-test","usage":` + usageJSON + `,"stopReason":"` + stopReason + `","timestamp":1700000000000}`
}

func textContent(text string) string {
	b, _ := json.Marshal(text) // test literals only; no HTML-sensitive characters
	return `[{"type":"text","text":` + string(b) + `}]`
}

func raws(items ...string) []json.RawMessage {
	out := make([]json.RawMessage, len(items))
	for i, s := range items {
		out[i] = json.RawMessage(s)
	}
	return out
}

// tinyStream: start, text_start, two text_deltas, text_end, done. The final
// text holds an astral character (two UTF-16 units).
func tinyStream() []json.RawMessage {
	return raws(
		`{"type":"start","partial":`+partial(`[]`, "stop")+`}`,
		`{"type":"text_start","contentIndex":0,"partial":`+partial(textContent(""), "stop")+`}`,
		`{"type":"text_delta","contentIndex":0,"delta":"Hel","partial":`+partial(textContent("Hel"), "stop")+`}`,
		`{"type":"text_delta","contentIndex":0,"delta":"lo 😀","partial":`+partial(textContent("Hello 😀"), "stop")+`}`,
		`{"type":"text_end","contentIndex":0,"content":"Hello 😀","partial":`+partial(textContent("Hello 😀"), "stop")+`}`,
		`{"type":"done","reason":"stop","message":`+partial(textContent("Hello 😀"), "stop")+`}`,
	)
}

// tinyFrames are the frames pi-ai 1.0.3 emits for tinyStream: the start
// frame's stopReason is always "pending", done emits no frame.
func tinyFrames() []string {
	return []string{
		`{"type":"start","partial":` + partial(`[]`, "pending") + `}`,
		`{"type":"text_start","contentIndex":0,"content":{"type":"text","text":""}}`,
		`{"type":"text_delta","contentIndex":0,"delta":"Hel"}`,
		`{"type":"text_delta","contentIndex":0,"delta":"lo 😀"}`,
		`{"type":"text_end","contentIndex":0,"content":"Hello 😀"}`,
		`null`,
	}
}

// bigTextFrames is a start, a text_start and one text_delta of n bytes.
func bigTextFrames(n int) ([]json.RawMessage, string) {
	var sb strings.Builder
	for sb.Len() < n {
		fmt.Fprintf(&sb, "chunk %08d é中😀 ", sb.Len())
	}
	text := sb.String()
	frames := raws(
		`{"type":"start","partial":`+partial(`[]`, "pending")+`}`,
		`{"type":"text_start","contentIndex":0,"content":{"type":"text","text":""}}`,
		`{"type":"text_delta","contentIndex":0,"delta":"`+text+`"}`,
	)
	return frames, text
}

// manyDeltaFrames is a start, a text_start and n text_deltas of size bytes.
func manyDeltaFrames(n, size int) []json.RawMessage {
	frames := raws(
		`{"type":"start","partial":`+partial(`[]`, "pending")+`}`,
		`{"type":"text_start","contentIndex":0,"content":{"type":"text","text":""}}`,
	)
	delta := strings.Repeat("x", size)
	for i := 0; i < n; i++ {
		frames = append(frames, json.RawMessage(`{"type":"text_delta","contentIndex":0,"delta":"`+delta+`"}`))
	}
	return frames
}
