package frames_test

import (
	"fmt"

	"github.com/frameproof/frameproof/impl/frames"
	"github.com/frameproof/frameproof/impl/pi"
)

// A writer turns each pi-ai stream event into at most one durable frame
// (AppendFrame writes its JSON, Encode returns it typed); a reader folds the
// stored frames back into the assistant message with ReduceJSON.
func Example() {
	partial := &pi.AssistantMessage{Content: []pi.Content{pi.TextContent{}}, API: "a", Provider: "p", Model: "m", StopReason: pi.StopPending, Timestamp: 1}
	events := []*pi.Event{
		{Type: pi.EventStart, Partial: partial},
		{Type: pi.EventTextStart, ContentIndex: pi.Index(0), Partial: partial},
		{Type: pi.EventTextDelta, ContentIndex: pi.Index(0), Delta: "Hel", Partial: partial},
		{Type: pi.EventTextDelta, ContentIndex: pi.Index(0), Delta: "lo", Partial: partial},
		{Type: pi.EventTextEnd, ContentIndex: pi.Index(0), Content: "Hello", Partial: partial},
		{Type: pi.EventDone, Reason: pi.StopStop, Message: partial}, // done gives no frame
	}

	enc := frames.NewEncoder()
	var log [][]byte
	for _, ev := range events {
		line, framed, err := enc.AppendFrame(nil, ev)
		if err != nil {
			fmt.Println("encode:", err)
			return
		}
		if framed {
			log = append(log, line)
			fmt.Println(string(line))
		}
	}

	msg, err := frames.ReduceJSON(log)
	if err != nil {
		fmt.Println("reduce:", err)
		return
	}
	fmt.Println("reduced:", msg)

	// Encode is the same decision with a typed frame; a fresh encoder gives
	// the same first frame.
	f, _ := frames.NewEncoder().Encode(events[0])
	fmt.Println("typed:", f.Type)
	// Output:
	// {"type":"start","partial":{"role":"assistant","content":[],"api":"a","provider":"p","model":"m","usage":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"pending","timestamp":1}}
	// {"type":"text_start","contentIndex":0,"content":{"type":"text","text":""}}
	// {"type":"text_delta","contentIndex":0,"delta":"Hel"}
	// {"type":"text_delta","contentIndex":0,"delta":"lo"}
	// {"type":"text_end","contentIndex":0,"content":"Hello"}
	// reduced: {"role":"assistant","content":[{"type":"text","text":"Hello"}],"api":"a","provider":"p","model":"m","usage":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"pending","timestamp":1}
	// typed: start
}
