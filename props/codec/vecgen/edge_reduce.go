package main

import (
	"encoding/json"
	"strings"
)

// startFrame is a minimal start frame as pi-ai writes it.
const startFrame = `{"type":"start","partial":{"role":"assistant","content":[],"api":"anthropic-messages","provider":"anthropic","model":"m","usage":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"pending","timestamp":1}}`

// edgeReduce: frame sequences written by hand, one per reducer rule and
// error message.
func (g *gen) edgeReduce() {
	S := startFrame
	cases := []struct{ name, why, frames string }{
		{"empty", "no frames at all: undefined, sent as null", ``},
		{"no-start", "frames without any start frame reduce to undefined, not an error", `{"type":"text_delta","contentIndex":0,"delta":"x"}`},
		{"frame-before-start", "a frame before the start frame throws once a start follows", `{"type":"text_delta","contentIndex":0,"delta":"x"},` + S},
		{"two-starts", "a second start frame", S + `,` + S},
		{"start-only", "a start frame alone is the message", S},
		{"text-start-wrong-content", "text_start carrying thinking content", S + `,{"type":"text_start","contentIndex":0,"content":{"type":"thinking","thinking":""}}`},
		{"thinking-start-wrong-content", "thinking_start carrying text content", S + `,{"type":"thinking_start","contentIndex":0,"content":{"type":"text","text":""}}`},
		{"toolcall-start-wrong-content", "toolcall_start carrying text content", S + `,{"type":"toolcall_start","contentIndex":0,"toolCall":{"type":"text","text":""}}`},
		{"gap", "a block start that would leave a gap", S + `,{"type":"text_start","contentIndex":1,"content":{"type":"text","text":""}}`},
		{"already-exists", "a block start at an index already taken", S + `,{"type":"text_start","contentIndex":0,"content":{"type":"text","text":""}},{"type":"text_start","contentIndex":0,"content":{"type":"text","text":""}}`},
		{"start-partial-content", "the start frame's content is kept, so the next block index is after it", strings.Replace(S, `"content":[]`, `"content":[{"type":"text","text":"pre"}]`, 1) + `,{"type":"text_start","contentIndex":1,"content":{"type":"text","text":""}},{"type":"text_delta","contentIndex":1,"delta":"x"}`},
		{"delta-no-block", "a delta for a block never started", S + `,{"type":"text_delta","contentIndex":0,"delta":"x"}`},
		{"delta-wrong-kind", "a thinking delta for a text block", S + `,{"type":"text_start","contentIndex":0,"content":{"type":"text","text":""}},{"type":"thinking_delta","contentIndex":0,"delta":"x"}`},
		{"delta-after-end", "a delta after the block's end frame", S + `,{"type":"text_start","contentIndex":0,"content":{"type":"text","text":""}},{"type":"text_end","contentIndex":0,"content":"a"},{"type":"text_delta","contentIndex":0,"delta":"x"}`},
		{"negative-index", "contentIndex -1", S + `,{"type":"text_start","contentIndex":-1,"content":{"type":"text","text":""}}`},
		{"fraction-index", "contentIndex 0.5", S + `,{"type":"text_delta","contentIndex":0.5,"delta":"x"}`},
		{"text-end-replaces", "text_end replaces the text and drops a signature the end frame lacks", S + `,{"type":"text_start","contentIndex":0,"content":{"type":"text","text":"","textSignature":"old"}},{"type":"text_delta","contentIndex":0,"delta":"abc"},{"type":"text_end","contentIndex":0,"content":"final"}`},
		{"thinking-end-redacted", "thinking_end sets signature and redacted from the frame only", S + `,{"type":"thinking_start","contentIndex":0,"content":{"type":"thinking","thinking":"","thinkingSignature":"s0","redacted":false}},{"type":"thinking_delta","contentIndex":0,"delta":"t"},{"type":"thinking_end","contentIndex":0,"content":"t","redacted":true}`},
		{"toolcall-open-json", "an unfinished tool call's arguments are parseStreamingJson of all delta JSON", S + `,{"type":"toolcall_start","contentIndex":0,"toolCall":{"type":"toolCall","id":"c","name":"n","arguments":{}}},{"type":"toolcall_delta","contentIndex":0,"delta":"{\"a\":[1,"},{"type":"toolcall_delta","contentIndex":0,"delta":"2"}`},
		{"toolcall-open-nonobject", "open tool-call JSON that parses to a string", S + `,{"type":"toolcall_start","contentIndex":0,"toolCall":{"type":"toolCall","id":"c","name":"n","arguments":{}}},{"type":"toolcall_delta","contentIndex":0,"delta":"\"ab"}`},
		{"toolcall-checkpoint-then-delta", "a checkpoint sets the JSON; later deltas extend it", S + `,{"type":"toolcall_start","contentIndex":0,"toolCall":{"type":"toolCall","id":"c","name":"n","arguments":{"p":"x"}}},{"type":"toolcall_checkpoint","contentIndex":0,"json":"{\"p\":\"x\""},{"type":"toolcall_delta","contentIndex":0,"delta":",\"q\":tr"}`},
		{"toolcall-checkpoint-only", "a checkpoint alone sets arguments immediately", S + `,{"type":"toolcall_start","contentIndex":0,"toolCall":{"type":"toolCall","id":"c","name":"n","arguments":{"p":"x"}}},{"type":"toolcall_checkpoint","contentIndex":0,"json":"{\"p\":\"xy\"}"}`},
		{"toolcall-end-wins", "toolcall_end replaces id, name, arguments and drops signature/namespace it lacks", S + `,{"type":"toolcall_start","contentIndex":0,"toolCall":{"type":"toolCall","id":"c","name":"n","arguments":{},"thoughtSignature":"t","namespace":"ns"}},{"type":"toolcall_delta","contentIndex":0,"delta":"{\"z\""},{"type":"toolcall_end","contentIndex":0,"id":"c2","name":"n2","arguments":[1]}`},
		{"toolcall-empty-delta-json", "an open tool call with only empty deltas keeps its start arguments", S + `,{"type":"toolcall_start","contentIndex":0,"toolCall":{"type":"toolCall","id":"c","name":"n","arguments":{"k":1}}},{"type":"toolcall_delta","contentIndex":0,"delta":""}`},
		{"lone-surrogate-deltas", "deltas holding the two halves of a surrogate pair join in the message", S + `,{"type":"text_start","contentIndex":0,"content":{"type":"text","text":""}},{"type":"text_delta","contentIndex":0,"delta":"\ud83d"},{"type":"text_delta","contentIndex":0,"delta":"\ude00!"}`},
		{"lone-surrogate-kept", "a lone surrogate stays escaped in the message", S + `,{"type":"text_start","contentIndex":0,"content":{"type":"text","text":""}},{"type":"text_delta","contentIndex":0,"delta":"a\udc00"}`},
	}
	for _, c := range cases {
		var frames []json.RawMessage
		if c.frames != "" {
			var list []json.RawMessage
			if err := json.Unmarshal([]byte("["+c.frames+"]"), &list); err != nil {
				fail(err)
			}
			frames = list
		}
		g.add("reduce-edge.jsonl", g.reduceVector("reduce/edge-"+c.name, "hand-picked: "+c.why, frames))
	}
}
