package lane

import (
	"errors"
	"fmt"

	"github.com/frameproof/frameproof/impl/frames"
	"github.com/frameproof/frameproof/impl/pi"
)

// respond runs one provider stream for an effect_pending intent (pi's
// openAssistantResponse + consumeAssistantStream): encode each event, enqueue
// its frame synchronously, emit and await message_start/message_update; at
// the end stop admission → drain → after_response → message_end. It returns
// the response to settle, or an error when the lane faulted or closed.
func (l *Lane) respond(req Request, recovery bool) (*pi.AssistantMessage, error) {
	enc := frames.NewEncoder()
	var startRedacted map[int]*bool // bugThinkingEndKeepsStartRedacted's memory
	prog := l.openProgress(req.OperationID, req.ResponseEntryID)
	stream := l.cfg.Provider.Stream(req)
	started := false
	var final, last *pi.AssistantMessage
	for i := 0; ; i++ {
		if err := l.usable(); err != nil {
			prog.seal()
			l.closeGate(req.OperationID)
			consumeRest(stream)
			return nil, err
		}
		ev, err := stream.Next()
		if err != nil {
			final = transportFailure(last, req.Model, err, l.now())
			break
		}
		switch ev.Type {
		case pi.EventDone, pi.EventError:
			if ev.Type == pi.EventDone && !started {
				return nil, l.protocolDefect(prog, "Assistant message stream emitted done before start")
			}
			if _, err := enc.Encode(&ev); err != nil {
				return nil, l.protocolDefect(prog, err.Error())
			}
			if l.cfg.bugs.on(bugFrameAfterTerminal) && ev.Message != nil {
				// BUG: persist the terminal event as if it were a frame.
				prog.write(&pi.Frame{Type: pi.FrameStart, Partial: ev.Message}, i, ev.Type)
			}
			if ev.Message == nil {
				return nil, l.protocolDefect(prog, fmt.Sprintf("Assistant message %s event has no message", ev.Type))
			}
			final = ev.Message.Clone()
		case pi.EventStart:
			if started {
				return nil, l.protocolDefect(prog, "Assistant message stream emitted more than one start event")
			}
			started = true
		default:
			if !started {
				return nil, l.protocolDefect(prog, fmt.Sprintf("Assistant message stream emitted %s before start", ev.Type))
			}
		}
		if final != nil {
			break
		}
		frame, err := enc.Encode(&ev)
		if err != nil {
			return nil, l.protocolDefect(prog, err.Error())
		}
		if frame != nil {
			if l.cfg.bugs.on(bugThinkingEndKeepsStartRedacted) {
				startRedacted = keepStartRedacted(startRedacted, &ev, frame)
			}
			prog.write(frame, i, ev.Type)
		}
		if ev.Partial != nil {
			last = ev.Partial.Clone()
		}
		l.setLive(req.OperationID, req.ResponseEntryID, last)
		out := Event{RunID: req.OperationID, Recovery: recovery, Message: last}
		if ev.Type == pi.EventStart {
			out.Type = EvMessageStart
		} else {
			src := ev
			out.Type, out.Source, out.Frame = EvMessageUpdate, &src, frame
		}
		l.emit(out)
	}
	prog.seal()
	if !l.cfg.bugs.on(bugSkipDrain) {
		if err := prog.drain(); err != nil {
			return nil, err
		}
	}
	msg := final
	if l.cfg.AfterResponse != nil {
		var err error
		if msg, err = l.cfg.AfterResponse(final.Clone()); err != nil {
			return nil, l.faultWith(fmt.Errorf("lane: after_response: %w", err))
		}
	}
	l.emit(Event{Type: EvMessageEnd, RunID: req.OperationID, Recovery: recovery, Message: msg, EntryID: req.ResponseEntryID})
	return msg, nil
}

// consumeRest reads a stream to its end after the lane faulted or closed:
// pi's consumeAssistantStream keeps iterating (event delivery resolves at
// once on a closed bus, frame writes reject silently) until the provider,
// whose request signal the sealed lane aborted, ends it.
func consumeRest(stream Stream) {
	for {
		ev, err := stream.Next()
		if err != nil || ev.Type == pi.EventDone || ev.Type == pi.EventError {
			return
		}
	}
}

// protocolDefect faults the lane with msg as the cause, exactly as pi's
// consumeAssistantStream (execution/assistant.ts) throws it.
func (l *Lane) protocolDefect(prog *progress, msg string) error {
	prog.seal()
	return l.faultWith(errors.New(msg))
}

// transportFailure is the error response for a stream that failed outside
// the event protocol: the latest live partial (or an empty message) stopped
// with "error".
func transportFailure(last *pi.AssistantMessage, model ModelRef, err error, now float64) *pi.AssistantMessage {
	var m *pi.AssistantMessage
	if last != nil {
		m = last.Clone()
	} else {
		m = &pi.AssistantMessage{Content: []pi.Content{}, API: "unknown", Provider: model.Provider, Model: model.ModelID, Timestamp: now}
	}
	m.StopReason, m.ErrorMessage = pi.StopError, strp(err.Error())
	return m
}

// keepStartRedacted is bugThinkingEndKeepsStartRedacted: it remembers a
// thinking block's redacted at its start and puts it on the block's
// thinking_end frame.
func keepStartRedacted(seen map[int]*bool, ev *pi.Event, f *pi.Frame) map[int]*bool {
	if seen == nil {
		seen = map[int]*bool{}
	}
	i := ev.ContentIndex.N
	switch ev.Type {
	case pi.EventThinkingStart:
		if ev.Partial != nil && i >= 0 && i < len(ev.Partial.Content) {
			if th, ok := ev.Partial.Content[i].(pi.ThinkingContent); ok {
				seen[i] = th.Redacted
			}
		}
	case pi.EventThinkingEnd:
		f.Redacted = seen[i]
	}
	return seen
}
