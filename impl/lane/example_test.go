package lane_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/frameproof/frameproof/impl/env"
	"github.com/frameproof/frameproof/impl/env/envtest"
	"github.com/frameproof/frameproof/impl/lane"
	"github.com/frameproof/frameproof/impl/pi"
	"github.com/frameproof/frameproof/impl/store"
	"github.com/frameproof/frameproof/impl/store/memory"
)

// provider answers every request with the same scripted pi-ai stream.
type provider struct{ events []pi.Event }

func (p provider) Stream(lane.Request) lane.Stream { return &stream{events: p.events} }

type stream struct{ events []pi.Event }

func (s *stream) Next() (pi.Event, error) {
	if len(s.events) == 0 {
		return pi.Event{}, errors.New("stream exhausted")
	}
	ev := s.events[0]
	s.events = s.events[1:]
	return ev, nil
}

// The smallest lane run: open a lane on a store, start a run (the user
// entry and the operation commit together), and drive it until it settles.
// Each provider event becomes a durable frame on the way; settlement writes
// the response entry and deletes the frames. A fixed clock and counting
// ids keep every id and timestamp reproducible.
func Example() {
	clock := envtest.NewClock(envtest.Epoch)
	partial := &pi.AssistantMessage{Content: []pi.Content{pi.TextContent{}}, API: "openai-responses", Provider: "openai", Model: "gpt-test", StopReason: pi.StopPending, Timestamp: 1}
	final := partial.Clone()
	final.Content = []pi.Content{pi.TextContent{Text: "hello"}}
	final.StopReason = pi.StopStop
	script := []pi.Event{
		{Type: pi.EventStart, Partial: partial},
		{Type: pi.EventTextStart, ContentIndex: pi.Index(0), Partial: partial},
		{Type: pi.EventTextDelta, ContentIndex: pi.Index(0), Delta: "hello", Partial: partial},
		{Type: pi.EventTextEnd, ContentIndex: pi.Index(0), Content: "hello", Partial: partial},
		{Type: pi.EventDone, Reason: pi.StopStop, Message: final},
	}

	var events []string
	st := memory.New(clock)
	l, err := lane.Open(lane.Config{
		Name: "main", Storage: st, Clock: clock, IDs: &envtest.IDs{}, Exec: env.Goroutines{},
		Provider: provider{script},
		Listener: func(ev lane.Event) env.Future { events = append(events, string(ev.Type)); return nil },
	})
	if err != nil {
		fmt.Println("open:", err)
		return
	}
	defer l.Close()

	op, err := l.StartRun(lane.RunOptions{UserText: "hi",
		Configuration: lane.Configuration{Model: lane.ModelRef{Provider: "openai", ModelID: "gpt-test"}, ThinkingLevel: "off"},
		RetryPolicy:   lane.RetryPolicy{MaxAttempts: 3, BaseDelayMs: 1000}})
	if err != nil {
		fmt.Println("start:", err)
		return
	}
	res, err := l.Drive(lane.StepOptions{})
	if err != nil {
		fmt.Println("drive:", err)
		return
	}
	fmt.Println("operation", op, res.Kind, res.Status)
	fmt.Println(strings.Join(events, " "))

	snap, _ := l.Snapshot()
	for _, e := range snap.Transcript {
		var entry struct {
			Message struct {
				Role    string
				Content json.RawMessage
			}
		}
		if err := json.Unmarshal(e.Raw, &entry); err != nil {
			fmt.Println("entry:", err)
			return
		}
		fmt.Println("entry seq", e.Seq, entry.Message.Role, string(entry.Message.Content))
		if entry.Message.Role == "assistant" { // settlement deleted its frames
			frames, _ := st.ReadList(lane.FramesAddr(op, e.ID), store.ReadOptions{})
			fmt.Println("frames left:", len(frames))
		}
	}
	// Output:
	// operation 0190a000-0000-7000-8000-000000000001 settled completed
	// lane_created run_start message_start message_end entry_added turn_start message_start message_update message_update message_update message_end entry_added usage turn_end run_end
	// entry seq 4 user "hi"
	// entry seq 17 assistant [{"type":"text","text":"hello"}]
	// frames left: 0
}
