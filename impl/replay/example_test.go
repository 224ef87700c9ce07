package replay_test

import (
	"fmt"

	"github.com/frameproof/frameproof/impl/replay"
)

// Replaying a stored transcript: decode it (JSONL or a JSON array), then
// project it onto one provider wire. The body is the request the next turn
// would send; the same transcript always gives the same bytes.
func Example() {
	transcript := `
{"role":"user","content":"list files","timestamp":1}
{"role":"assistant","content":[{"type":"text","text":"checking"},{"type":"toolCall","id":"call_1","name":"bash","arguments":{"cmd":"ls"}}],"api":"anthropic-messages","provider":"anthropic","model":"claude-x","usage":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"toolUse","timestamp":2}
{"role":"toolResult","toolCallId":"call_1","toolName":"bash","content":[{"type":"text","text":"a b"}],"isError":false,"timestamp":3}
`
	msgs, err := replay.DecodeTranscript(transcript)
	if err != nil {
		fmt.Println("decode:", err)
		return
	}
	body, err := replay.Project(msgs, replay.Target{Wire: replay.WireOpenAIChat, Provider: "openai", Model: "gpt-x"}, replay.Options{})
	if err != nil {
		fmt.Println("project:", err)
		return
	}
	fmt.Println(string(body))
	// Output:
	// {"model":"gpt-x","messages":[{"role":"user","content":[{"type":"text","text":"list files"}]},{"role":"assistant","content":"checking","tool_calls":[{"id":"call_1","type":"function","function":{"name":"bash","arguments":"{\"cmd\":\"ls\"}"}}]},{"role":"tool","tool_call_id":"call_1","content":"a b"}]}
}
