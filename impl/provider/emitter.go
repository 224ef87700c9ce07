package provider

import (
	"errors"

	"github.com/frameproof/frameproof/impl/frames"
	"github.com/frameproof/frameproof/impl/pi"
)

// emitter owns the live accumulator and turns adapter actions into events,
// each carrying a snapshot of the accumulator at emission time. (Seeded
// bugs wrap its output from outside: WithBug.)
type emitter struct {
	live     *Message
	out      func(Event)
	argBuf   map[int]string // raw JSON streamed so far per tool-call block
	ended    map[int]bool
	started  bool
	terminal bool
}

func newEmitter(wire Wire, meta Meta, out func(Event)) *emitter {
	return &emitter{
		live: &Message{
			Role:       "assistant",
			Content:    []Block{},
			API:        string(wire),
			Provider:   meta.Provider,
			Model:      meta.Model,
			StopReason: "pending",
		},
		out:    out,
		argBuf: map[int]string{},
		ended:  map[int]bool{},
	}
}

func (em *emitter) emit(ev Event) {
	if !ev.IsTerminal() {
		ev.Partial = em.live.Clone()
	}
	em.out(ev)
}

func (em *emitter) start() {
	em.started = true
	em.emit(Event{Type: EvStart})
}

// open appends a block and emits its start event; it returns the index.
func (em *emitter) open(b Block) int {
	em.live.Content = append(em.live.Content, b)
	i := len(em.live.Content) - 1
	switch b.Type {
	case "text":
		em.emit(Event{Type: EvTextStart, ContentIndex: i})
	case "thinking":
		em.emit(Event{Type: EvThinkingStart, ContentIndex: i})
	case "toolCall":
		em.emit(Event{Type: EvToolStart, ContentIndex: i})
	}
	return i
}

func (em *emitter) block(i int) *Block { return &em.live.Content[i] }

// grow appends delta to a text or thinking block and emits the delta event.
func (em *emitter) grow(i int, delta string) {
	b := em.block(i)
	if b.Type == "thinking" {
		b.Thinking = pi.Concat(b.Thinking, delta)
		em.emit(Event{Type: EvThinkingDelta, ContentIndex: i, Delta: delta})
		return
	}
	b.Text = pi.Concat(b.Text, delta)
	em.emit(Event{Type: EvTextDelta, ContentIndex: i, Delta: delta})
}

// growArgs appends raw JSON to a tool call and emits the delta event. Like
// pi-ai's providers, the live arguments are parseStreamingJson of the whole
// buffer after every delta (frames.ParseStreamingJSON), so the partial shows
// half-streamed arguments; the frame encoder's catch-up logic reads them.
func (em *emitter) growArgs(i int, delta string) {
	em.argBuf[i] = pi.Concat(em.argBuf[i], delta)
	em.block(i).Arguments = frames.ParseStreamingJSON(em.argBuf[i])
	em.emit(Event{Type: EvToolDelta, ContentIndex: i, Delta: delta})
}

// end emits the authoritative end event for block i.
func (em *emitter) end(i int) {
	if em.ended[i] {
		return
	}
	em.ended[i] = true
	b := em.block(i)
	switch b.Type {
	case "text":
		em.emit(Event{Type: EvTextEnd, ContentIndex: i, Content: b.Text})
	case "thinking":
		em.emit(Event{Type: EvThinkingEnd, ContentIndex: i, Content: b.Thinking})
	case "toolCall":
		if buf, ok := em.argBuf[i]; ok {
			if v, ok := argsValue(buf); ok {
				b.Arguments = v
			} else {
				b.Arguments = frames.ParseStreamingJSON(buf)
			}
		}
		if ArgsValue(b.Arguments).IsUndefined() {
			b.Arguments = pi.EmptyObject()
		}
		tc := *b
		tc.Arguments = cloneJSON(b.Arguments)
		em.emit(Event{Type: EvToolEnd, ContentIndex: i, ToolCall: &tc})
	}
}

// endAll ends every block not yet ended, in content order.
func (em *emitter) endAll() {
	for i := range em.live.Content {
		em.end(i)
	}
}

// finish emits done, or error when the stop reason says the provider failed.
func (em *emitter) finish() {
	if em.terminal {
		return
	}
	switch em.live.StopReason {
	case "pending":
		em.fail(errors.New("provider: stream ended without a stop reason"))
		return
	case "error", "aborted":
		msg := em.live.ErrorMessage
		if msg == "" {
			msg = "provider: stopped with an error stop reason"
		}
		em.fail(errors.New(msg))
		return
	}
	em.terminal = true
	em.emit(Event{Type: EvDone, Reason: em.live.StopReason, Message: em.live.Clone()})
}

// fail ends the stream with an error event carrying the message so far.
func (em *emitter) fail(err error) {
	if em.terminal {
		return
	}
	em.terminal = true
	em.live.StopReason = "error"
	em.live.ErrorMessage = err.Error()
	em.emit(Event{Type: EvError, Reason: "error", Message: em.live.Clone()})
}
